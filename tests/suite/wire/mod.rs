//! The persisted wire format: serde shapes, the stream reader and its
//! errors, numbers, the JSON Schema and the RFD texts' own examples.

mod rfd_examples;
mod schema;
mod wire_numbers;
mod wire_real_input;
mod wire_stream_files;
