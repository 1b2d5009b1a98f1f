//! The store proxy: a loopback TCP relay between an executor process and its idempotency store, which the
//! harness can cut (the `store_outage` fault for executor processes).
//!
//! Rule enforced here: while the proxy is cut, the store is unreachable for the executor and only for it:
//! every relayed connection is reset (RST, not a clean close) and every new one is accepted and reset at
//! once; the database itself, and every other executor using it, are never touched. When the cut ends,
//! new connections are relayed again.

use std::net::SocketAddr;
use std::sync::{Arc, Mutex, PoisonError};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;
use tokio::task::JoinHandle;

/// A relay from a loopback port to the store's address, cut and restored by the harness.
pub struct StoreProxy {
    address: SocketAddr,
    cut: watch::Sender<bool>,
    acceptor: JoinHandle<()>,
    relays: Arc<Mutex<Vec<JoinHandle<()>>>>,
}

impl StoreProxy {
    /// Listens on a free loopback port and relays every connection to `upstream` (`host:port`).
    ///
    /// # Errors
    /// When no loopback port can be bound.
    pub async fn start(upstream: &str) -> std::io::Result<StoreProxy> {
        let listener = TcpListener::bind("127.0.0.1:0").await?;
        let address = listener.local_addr()?;
        let (cut, watching) = watch::channel(false);
        let relays = Arc::new(Mutex::new(Vec::new()));
        let acceptor = tokio::spawn(accept(listener, upstream.to_owned(), watching, relays.clone()));
        Ok(StoreProxy { address, cut, acceptor, relays })
    }

    /// The loopback address the executor connects to.
    pub fn address(&self) -> SocketAddr {
        self.address
    }

    /// Cuts the store off (`true`): every open connection is reset and new ones are refused; or ends the cut
    /// (`false`).
    pub fn set_cut(&self, cut: bool) {
        self.cut.send_replace(cut);
    }

    /// Connections relayed and still open.
    pub fn open_connections(&self) -> usize {
        let mut relays = self.relays.lock().unwrap_or_else(PoisonError::into_inner);
        relays.retain(|relay| !relay.is_finished());
        relays.len()
    }
}

impl Drop for StoreProxy {
    fn drop(&mut self) {
        self.acceptor.abort();
        for relay in self.relays.lock().unwrap_or_else(PoisonError::into_inner).drain(..) {
            relay.abort();
        }
    }
}

async fn accept(
    listener: TcpListener,
    upstream: String,
    cut: watch::Receiver<bool>,
    relays: Arc<Mutex<Vec<JoinHandle<()>>>>,
) {
    while let Ok((client, _)) = listener.accept().await {
        if *cut.borrow() {
            reset(client);
            continue;
        }
        let relay = tokio::spawn(relay(client, upstream.clone(), cut.clone()));
        let mut relays = relays.lock().unwrap_or_else(PoisonError::into_inner);
        relays.retain(|relay| !relay.is_finished());
        relays.push(relay);
    }
}

/// Relays one connection until either side closes it or the proxy is cut (then the executor's side is reset).
async fn relay(mut client: TcpStream, upstream: String, mut cut: watch::Receiver<bool>) {
    let Ok(mut server) = TcpStream::connect(&upstream).await else { return reset(client) };
    tokio::select! {
        _ = tokio::io::copy_bidirectional(&mut client, &mut server) => {}
        _ = cut.wait_for(|cut| *cut) => reset(client),
    }
}

/// Closes `stream` with a reset, so that the executor sees its store fail rather than end a session.
fn reset(stream: TcpStream) {
    let _ = stream.set_zero_linger();
    drop(stream);
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    async fn echo_server() -> SocketAddr {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let address = listener.local_addr().expect("address");
        tokio::spawn(async move {
            while let Ok((mut stream, _)) = listener.accept().await {
                tokio::spawn(async move {
                    let mut buffer = [0u8; 64];
                    while let Ok(read) = stream.read(&mut buffer).await {
                        if read == 0 || stream.write_all(&buffer[..read]).await.is_err() {
                            return;
                        }
                    }
                });
            }
        });
        address
    }

    async fn round_trip(address: SocketAddr) -> std::io::Result<Vec<u8>> {
        let mut stream = TcpStream::connect(address).await?;
        stream.write_all(b"ping").await?;
        let mut answer = vec![0u8; 4];
        stream.read_exact(&mut answer).await?;
        Ok(answer)
    }

    #[tokio::test]
    async fn relays_until_cut_refuses_while_cut_and_relays_again_after() {
        let proxy = StoreProxy::start(&echo_server().await.to_string()).await.expect("proxy");
        let mut open = TcpStream::connect(proxy.address()).await.expect("connect");
        open.write_all(b"ping").await.expect("write");
        let mut answer = [0u8; 4];
        open.read_exact(&mut answer).await.expect("relayed");
        assert_eq!(&answer, b"ping");

        proxy.set_cut(true);
        let mut rest = Vec::new();
        assert!(
            matches!(open.read_to_end(&mut rest).await, Err(_) | Ok(0)),
            "an open connection ends when the proxy is cut"
        );
        assert!(round_trip(proxy.address()).await.is_err(), "a new connection fails while cut");

        proxy.set_cut(false);
        assert_eq!(round_trip(proxy.address()).await.expect("relayed again"), b"ping");
    }
}
