//! Library side of the `betula` binary: the MySQL wire-protocol layer and,
//! later, the server glue that connects it to the SQL layer.
pub mod protocol;
