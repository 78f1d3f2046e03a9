//! The inference service: one thread owns the network and answers the leaf positions of every
//! self-play worker, batching requests that arrive together so the network runs on large
//! batches (KataGo's and AlphaZero.jl's design). Workers hold an [`InferenceClient`], which is
//! an [`Evaluator`] like any other, so the search does not know it is talking to a service.

use crate::games::{Checkers, Rules};
use crate::mcts::{EvalInput, Evaluation, Evaluator};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::time::{Duration, Instant};

struct Request<G: Rules> {
    inputs: Vec<EvalInput<G>>,
    reply: Sender<Vec<Evaluation>>,
}

/// A worker's handle on the service.
pub struct InferenceClient<G: Rules = Checkers> {
    requests: Sender<Request<G>>,
    reply_tx: Sender<Vec<Evaluation>>,
    reply_rx: Receiver<Vec<Evaluation>>,
    history: usize,
    live: Arc<AtomicUsize>,
}

impl<G: Rules> Clone for InferenceClient<G> {
    fn clone(&self) -> Self {
        self.live.fetch_add(1, Ordering::SeqCst);
        let (reply_tx, reply_rx) = mpsc::channel();
        InferenceClient {
            requests: self.requests.clone(),
            reply_tx,
            reply_rx,
            history: self.history,
            live: self.live.clone(),
        }
    }
}

impl<G: Rules> Drop for InferenceClient<G> {
    fn drop(&mut self) {
        self.live.fetch_sub(1, Ordering::SeqCst);
    }
}

impl<G: Rules> Evaluator<G> for InferenceClient<G> {
    fn history(&self) -> usize {
        self.history
    }

    fn evaluate(&mut self, inputs: &[EvalInput<G>]) -> Vec<Evaluation> {
        if inputs.is_empty() {
            return Vec::new();
        }
        let request = Request {
            inputs: inputs.to_vec(),
            reply: self.reply_tx.clone(),
        };
        self.requests
            .send(request)
            .expect("the inference service outlives its clients");
        self.reply_rx
            .recv()
            .expect("the inference service answers every request")
    }
}

/// How the service batched its work.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct InferenceStats {
    /// Network calls.
    pub batches: u64,
    /// Positions evaluated.
    pub positions: u64,
    /// Time spent inside the network.
    pub busy: Duration,
}

impl InferenceStats {
    pub fn mean_batch(&self) -> f64 {
        self.positions as f64 / self.batches.max(1) as f64
    }
}

/// The service's side of the channel; [`serve`](Self::serve) runs it.
pub struct InferenceService<G: Rules = Checkers> {
    requests: Receiver<Request<G>>,
    live: Arc<AtomicUsize>,
    max_batch: usize,
    wait: Duration,
}

/// A service that runs the network on up to `max_batch` positions at once, waiting at most
/// `wait` for more requests once one has arrived, and a first client (clone it for more).
pub fn inference_service<G: Rules>(
    history: usize,
    max_batch: usize,
    wait: Duration,
) -> (InferenceService<G>, InferenceClient<G>) {
    let (tx, rx) = mpsc::channel();
    let live = Arc::new(AtomicUsize::new(1));
    let (reply_tx, reply_rx) = mpsc::channel();
    let client = InferenceClient {
        requests: tx,
        reply_tx,
        reply_rx,
        history,
        live: live.clone(),
    };
    let service = InferenceService {
        requests: rx,
        live,
        max_batch: max_batch.max(1),
        wait,
    };
    (service, client)
}

impl<G: Rules> InferenceService<G> {
    /// Answers requests with `eval` until every client is gone. A batch is run when it holds
    /// `max_batch` positions, when every live client is waiting on it (each has at most one
    /// request in flight, so nothing more can come), or when `wait` has passed.
    pub fn serve(self, eval: &mut dyn Evaluator<G>) -> InferenceStats {
        let mut stats = InferenceStats::default();
        while let Ok(first) = self.requests.recv() {
            let deadline = Instant::now() + self.wait;
            let mut size = first.inputs.len();
            let mut pending = vec![first];
            while size < self.max_batch && pending.len() < self.live.load(Ordering::SeqCst) {
                match self
                    .requests
                    .recv_timeout(deadline.saturating_duration_since(Instant::now()))
                {
                    Ok(r) => {
                        size += r.inputs.len();
                        pending.push(r);
                    }
                    Err(RecvTimeoutError::Timeout | RecvTimeoutError::Disconnected) => break,
                }
            }
            let inputs: Vec<EvalInput<G>> = pending.iter().flat_map(|r| r.inputs.clone()).collect();
            let start = Instant::now();
            let mut evals = eval.evaluate(&inputs).into_iter();
            stats.busy += start.elapsed();
            stats.batches += 1;
            stats.positions += inputs.len() as u64;
            for r in pending {
                let answer: Vec<Evaluation> = evals.by_ref().take(r.inputs.len()).collect();
                // A client that gave up (its worker failed) no longer listens; the rest go on.
                let _ = r.reply.send(answer);
            }
        }
        stats
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::checkers::Position;
    use crate::mcts::{HopState, MaterialEvaluator};

    fn input(pos: Position) -> EvalInput {
        let state = HopState::turn_start(pos);
        EvalInput {
            actions: state.hops(),
            state,
            quiet: 0,
            history: Vec::new(),
        }
    }

    #[test]
    fn clients_get_the_answers_to_their_own_positions_in_batches() {
        let (service, client) = inference_service(0, 64, Duration::from_millis(50));
        let start = input(Position::start());
        let mut moved = Position::start();
        moved = moved.apply(&crate::games::checkers::legal_moves(&moved)[0]);
        let other = input(moved);
        let workers: Vec<_> = (0..4)
            .map(|i| {
                let mut c = client.clone();
                let inp = if i % 2 == 0 {
                    start.clone()
                } else {
                    other.clone()
                };
                std::thread::spawn(move || {
                    (0..20)
                        .map(|_| c.evaluate(std::slice::from_ref(&inp)))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        drop(client);
        let stats = service.serve(&mut MaterialEvaluator::default());
        let mut direct = MaterialEvaluator::default();
        for (i, w) in workers.into_iter().enumerate() {
            let want = direct.evaluate(std::slice::from_ref(if i % 2 == 0 {
                &start
            } else {
                &other
            }));
            for got in w.join().unwrap() {
                assert_eq!(got, want);
            }
        }
        assert_eq!(stats.positions, 80);
        assert!(stats.batches <= 80 && stats.batches >= 20, "{stats:?}");
    }
}
