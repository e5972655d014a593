//! What the model's commands print: no secret ever (the model's rules
//! themselves are tested in the crate, `src/testkit/spec/`).

mod no_secret_printed;
