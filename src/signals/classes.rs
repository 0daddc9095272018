//! (command classes being written)
