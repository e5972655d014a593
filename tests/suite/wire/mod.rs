//! The persisted wire format: serde shapes, the stream reader and its
//! errors, numbers and stream files (the JSON Schema's and the RFD texts'
//! examples are tested beside the wire types, in `src/wire/`).

mod wire_numbers;
mod wire_real_input;
mod wire_stream_files;
