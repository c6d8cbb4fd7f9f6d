//! The Tasks extension (`io.modelcontextprotocol/tasks`, SEP-2663): wire types, the state
//! machine, the stored record, the TaskObject's pure behaviour and the Worker ↔ object
//! contract.

pub mod calls;
pub mod execution;
pub mod id;
pub mod layout;
pub mod live;
pub mod machine;
pub mod object;
pub mod protocol;
pub mod record;
pub mod task;
pub mod timeline;
pub mod transition;
pub mod watch;
