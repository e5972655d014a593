//! The persisted wire format: serde shapes, the stream reader and its
//! errors on real input and numbers (the JSON Schema's, the RFD texts' and
//! the stream files' examples are tested beside the wire types, in `src/wire/`).

mod wire_numbers;
mod wire_real_input;
