//! The `ask_user` built-in tool (RFD 083).
