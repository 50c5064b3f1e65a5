//! DCF unit tests: the state machine driven by scripted medium indications.
