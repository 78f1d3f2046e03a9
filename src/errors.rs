//! A failure with what was being done when it happened, its cause kept as the error's
//! source: the command line prints the whole chain on one line (`init runs/a/best.ckpt:
//! checkpoint is truncated: ...`), and code that matches on causes can still reach them.

use std::error::Error;

/// `what: source`, with `source` kept for [`Error::source`].
#[derive(Debug, thiserror::Error)]
#[error("{what}: {source}")]
pub struct Caused {
    what: String,
    #[source]
    source: Box<dyn Error + Send + Sync>,
}

/// Names what a fallible step was doing: `load(path).context(|| format!("init {path}"))?`.
pub trait Context<T> {
    fn context(self, what: impl FnOnce() -> String) -> Result<T, Caused>;
}

impl<T, E: Error + Send + Sync + 'static> Context<T> for Result<T, E> {
    fn context(self, what: impl FnOnce() -> String) -> Result<T, Caused> {
        self.map_err(|source| Caused {
            what: what(),
            source: Box::new(source),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_caused_error_reads_what_then_why_and_keeps_the_cause() {
        let io = std::io::Error::new(std::io::ErrorKind::NotFound, "no such file");
        let e = Err::<(), _>(io)
            .context(|| "init a.ckpt".into())
            .unwrap_err();
        assert_eq!(e.to_string(), "init a.ckpt: no such file");
        let cause = e.source().expect("the cause is kept");
        assert!(cause.downcast_ref::<std::io::Error>().is_some());
    }
}
