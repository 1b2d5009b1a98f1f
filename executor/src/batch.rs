//! Parallel tool calls of one model turn: run what may overlap, order what conflicts.
//!
//! Rule enforced here: calls that act on the same resource (conflict key `tenant:resource_type:resource_id`)
//! keep their call order when one of them writes: a write waits for every earlier call on its key, a read
//! waits for the earlier writes. Everything else runs at once. Answers come back in call order.

use crate::decode::Decoded;
use crate::envelope::Envelope;
use crate::error::ErrorBody;
use crate::executor::Executor;
use crate::request::Request;
use std::collections::BTreeMap;
use tokio::sync::watch;

/// The conflict key of a decoded call, if its tool names a resource.
pub fn conflict_key(tenant_id: &str, decoded: &Decoded<'_>) -> Option<String> {
    decoded
        .tool
        .implementation
        .resource(&decoded.arguments)
        .map(|resource| format!("{tenant_id}:{}:{}", resource.kind, resource.id))
}

/// For each call, the indices of earlier calls it must wait for.
fn plan(keys: &[(Option<String>, bool)]) -> Vec<Vec<usize>> {
    #[derive(Default)]
    struct Lane {
        last_write: Option<usize>,
        reads_since: Vec<usize>,
    }
    let mut lanes: BTreeMap<&str, Lane> = BTreeMap::new();
    keys.iter()
        .enumerate()
        .map(|(index, (key, writes))| {
            let Some(key) = key else { return Vec::new() };
            let lane = lanes.entry(key.as_str()).or_default();
            let mut waits: Vec<usize> = lane.last_write.into_iter().collect();
            if *writes {
                waits.append(&mut lane.reads_since);
                lane.last_write = Some(index);
            } else {
                lane.reads_since.push(index);
            }
            waits
        })
        .collect()
}

impl Executor {
    /// Executes the tool calls of one model turn; answers in call order.
    pub async fn execute_batch(&self, requests: Vec<Request>) -> Vec<Envelope> {
        let decoded: Vec<Result<Decoded<'_>, ErrorBody>> = requests
            .iter()
            .map(|request| (self.stages().decode)(&request.call, self.tools(), &self.config().limits))
            .collect();
        let keys: Vec<(Option<String>, bool)> = requests
            .iter()
            .zip(&decoded)
            .map(|(request, decoded)| match decoded {
                Ok(decoded) => {
                    (conflict_key(&request.auth.tenant_id, decoded), decoded.tool.spec().risk.has_side_effect())
                }
                Err(_) => (None, false),
            })
            .collect();
        let waits = plan(&keys);
        let (done, watchers): (Vec<_>, Vec<_>) = requests.iter().map(|_| watch::channel(false)).unzip();
        let calls = requests.iter().zip(decoded).zip(waits).zip(done).map(|(((request, decoded), waits), done)| {
            let mut earlier: Vec<watch::Receiver<bool>> = waits.iter().map(|index| watchers[*index].clone()).collect();
            async move {
                for receiver in &mut earlier {
                    // The sender lives until its call finished; an error means it finished too.
                    let _ = receiver.wait_for(|finished| *finished).await;
                }
                let envelope = self.execute_decoded(request, decoded).await;
                let _ = done.send(true);
                envelope
            }
        });
        futures::future::join_all(calls).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(name: &str, writes: bool) -> (Option<String>, bool) {
        (Some(name.to_owned()), writes)
    }

    #[test]
    fn writes_on_one_key_run_in_order_and_reads_run_free() {
        let keys = vec![
            key("t:order:1", false),
            key("t:order:1", true),
            key("t:order:2", true),
            key("t:order:1", true),
            key("t:order:1", false),
            (None, true),
            key("t:order:1", false),
        ];
        assert_eq!(plan(&keys), vec![vec![], vec![0], vec![], vec![1], vec![3], vec![], vec![3]]);
    }
}
