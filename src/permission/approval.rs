//! Asking the user: the question, the answer and who asks.

use futures::future::BoxFuture;

pub use crate::protocol::{ApprovalDecision, ApprovalDetail, ApprovalRequest};

/// How a host asks its user. The TUI shows an overlay; a library user can
/// bring their own. A future that never resolves keeps the call waiting
/// until the turn is interrupted, which drops it.
pub trait Approver: Send + Sync {
    /// Asks about one call and resolves with the answer.
    fn approve(&self, request: ApprovalRequest) -> BoxFuture<'static, ApprovalDecision>;
}
