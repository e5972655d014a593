//! How the prompter presents a question (RFD 082 "Secret questions", RFD 083 step 4).
