//! The inference service: one thread owns the network and answers the leaf positions of every
//! self-play worker, batching requests that arrive together so the network runs on large
//! batches (KataGo's and AlphaZero.jl's design). Workers hold an [`InferenceClient`], which is
//! an [`Evaluator`] like any other, so the search does not know it is talking to a service.

use crate::games::{Checkers, Rules};
use crate::mcts::{Begun, EvalInput, Evaluation, Evaluator};
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

/// A batch begun and the requests it answers.
struct InFlight<G: Rules> {
    requests: Vec<Request<G>>,
    begun: Begun,
}

impl<G: Rules> InFlight<G> {
    fn clients(&self) -> usize {
        self.requests.len()
    }
}

impl<G: Rules> InferenceService<G> {
    /// Answers requests with `eval` until every client is gone. A batch is run when it holds
    /// `max_batch` positions, when every live client is waiting on it or on a batch already
    /// begun (each has at most one request in flight, so nothing more can come), or when
    /// `wait` has passed. Up to the evaluator's [`in_flight`](Evaluator::in_flight) batches are
    /// begun before the oldest is finished.
    pub fn serve(self, eval: &mut dyn Evaluator<G>) -> InferenceStats {
        let mut stats = InferenceStats::default();
        let most = eval.in_flight().max(1);
        let mut flying: std::collections::VecDeque<InFlight<G>> = Default::default();
        loop {
            let waiting: usize = flying.iter().map(InFlight::clients).sum();
            let room = flying.len() < most && waiting < self.live.load(Ordering::SeqCst);
            // With nothing in flight, block for a request; with a batch on the device, take
            // one only if it comes within `wait`, else answer the oldest batch first.
            let first = if !room {
                None
            } else if flying.is_empty() {
                match self.requests.recv() {
                    Ok(r) => Some(r),
                    Err(_) => break,
                }
            } else {
                self.requests.recv_timeout(self.wait).ok()
            };
            let Some(first) = first else {
                match flying.pop_front() {
                    Some(oldest) => self.answer(oldest, &mut stats),
                    None => break,
                }
                continue;
            };
            let requests = self.gather(first, waiting);
            let inputs: Vec<EvalInput<G>> =
                requests.iter().flat_map(|r| r.inputs.clone()).collect();
            let start = Instant::now();
            let begun = eval.begin(&inputs);
            stats.busy += start.elapsed();
            stats.batches += 1;
            stats.positions += inputs.len() as u64;
            flying.push_back(InFlight { requests, begun });
        }
        for batch in flying {
            self.answer(batch, &mut stats);
        }
        stats
    }

    /// `first` and the requests that come after it, until the batch is full, every live client
    /// not already `waiting` on a begun batch is in it, or `wait` has passed.
    fn gather(&self, first: Request<G>, waiting: usize) -> Vec<Request<G>> {
        let deadline = Instant::now() + self.wait;
        let mut size = first.inputs.len();
        let mut pending = vec![first];
        while size < self.max_batch && waiting + pending.len() < self.live.load(Ordering::SeqCst) {
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
        pending
    }

    /// Waits for a begun batch and sends each request its evaluations.
    fn answer(&self, batch: InFlight<G>, stats: &mut InferenceStats) {
        let start = Instant::now();
        let mut evals = batch.begun.finish().into_iter();
        stats.busy += start.elapsed();
        for r in batch.requests {
            let answer: Vec<Evaluation> = evals.by_ref().take(r.inputs.len()).collect();
            // A client that gave up (its worker failed) no longer listens; the rest go on.
            let _ = r.reply.send(answer);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::checkers::Position;
    use crate::mcts::MaterialEvaluator;
    use crate::mcts::evaluator::turn_start_input;

    fn input(pos: Position) -> EvalInput {
        turn_start_input(pos, 0)
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

    /// An evaluator that overlaps: `begin` only notes the batch; its evaluations come at
    /// `finish`. It records how many batches were begun and not yet finished at most.
    struct Overlapping {
        inner: MaterialEvaluator,
        open: Arc<AtomicUsize>,
        most_open: Arc<AtomicUsize>,
    }

    impl Evaluator for Overlapping {
        fn evaluate(&mut self, inputs: &[EvalInput]) -> Vec<Evaluation> {
            self.inner.evaluate(inputs)
        }
        fn in_flight(&self) -> usize {
            2
        }
        fn begin(&mut self, inputs: &[EvalInput]) -> Begun {
            let now = self.open.fetch_add(1, Ordering::SeqCst) + 1;
            self.most_open.fetch_max(now, Ordering::SeqCst);
            let (evals, open) = (self.inner.evaluate(inputs), self.open.clone());
            Begun::later(move || {
                open.fetch_sub(1, Ordering::SeqCst);
                evals
            })
        }
    }

    #[test]
    fn a_device_that_overlaps_gets_a_second_batch_before_the_first_is_answered() {
        // Batches of two positions: four clients fill two of them.
        let (service, client) = inference_service(0, 2, Duration::from_millis(20));
        let start = input(Position::start());
        let workers: Vec<_> = (0..4)
            .map(|i| {
                let mut c = client.clone();
                let inp = start.clone();
                std::thread::spawn(move || {
                    (0..30)
                        .map(|k| {
                            // Staggered, so requests arrive while a batch is in flight.
                            std::thread::sleep(Duration::from_micros(300 * ((i + k) % 3) as u64));
                            c.evaluate(std::slice::from_ref(&inp))
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        drop(client);
        let (open, most_open) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)));
        let mut eval = Overlapping {
            inner: MaterialEvaluator::default(),
            open: open.clone(),
            most_open: most_open.clone(),
        };
        let stats = service.serve(&mut eval);
        let want = MaterialEvaluator::default().evaluate(std::slice::from_ref(&start));
        for w in workers {
            for got in w.join().unwrap() {
                assert_eq!(got, want);
            }
        }
        assert_eq!(stats.positions, 120);
        assert_eq!(
            open.load(Ordering::SeqCst),
            0,
            "every begun batch was finished"
        );
        assert_eq!(
            most_open.load(Ordering::SeqCst),
            eval.in_flight(),
            "a second batch was begun while the first was on the device"
        );
    }
}
