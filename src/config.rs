//! Tool configuration and built-in defaults merged under user configuration (RFD 081/083).
