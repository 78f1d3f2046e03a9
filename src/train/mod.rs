//! Trainers: the AlphaZero pipeline ([`alphazero`]). The classic learners of issue 5 — TD(lambda), a genetic algorithm and particle
//! swarm optimisation — train small value networks ([`value_net`]) that play as the `td`,
//! `ga` and `pso` agents.

pub mod alphazero;
pub mod ga;
pub mod pso;
pub mod run;
pub mod run_dir;
pub mod td;
pub mod tournament;
pub mod value_net;
