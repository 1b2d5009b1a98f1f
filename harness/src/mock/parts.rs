//! The harness's own HTTP/1.1 server for the answers wiremock cannot write: a body in two parts, or broken off.
//!
//! Rule enforced here: it decides nothing. Every request goes to the same [`World::handle`] as over wiremock,
//! and the reply is written as the world says (status, headers, delay, a dropped connection); only a reply with
//! [`crate::world::Parts`] is written differently: its first part, a pause, then the rest or a closed connection,
//! framed by its length or, when the parts say `chunked`, as HTTP/1.1 chunks (hyper frames a body whose length
//! it is not told that way, one chunk per write). It serves one step (fault `body_in_two_parts`); its connections end with it.

use crate::world::{Reply, World};
use futures::StreamExt as _;
use http_body_util::combinators::BoxBody;
use http_body_util::{BodyExt, Full, Limited, StreamBody};
use hyper::body::{Bytes, Frame};
use hyper::{Request, Response};
use hyper_util::rt::TokioIo;
use std::sync::Arc;
use tokio::net::TcpListener;
use tokio::task::JoinSet;

/// Longest request body read (an executor's arguments are at most 1 MiB; its protocol lines 16 MiB).
const MAX_REQUEST_BYTES: usize = 16 * 1024 * 1024;

type Body = BoxBody<Bytes, std::io::Error>;

/// Serves `world` on `listener` until the task is aborted, which drops every connection with it.
pub(super) async fn serve(listener: TcpListener, world: Arc<World>) {
    let mut connections = JoinSet::new();
    while let Ok((stream, _)) = listener.accept().await {
        let world = world.clone();
        connections.spawn(async move {
            let service = hyper::service::service_fn(move |request| answer(world.clone(), request));
            // A connection that breaks (or that a cut body ends) is over; there is nobody to tell.
            let _ = hyper::server::conn::http1::Builder::new().serve_connection(TokioIo::new(stream), service).await;
        });
    }
}

async fn answer(world: Arc<World>, request: Request<hyper::body::Incoming>) -> Result<Response<Body>, std::io::Error> {
    let (head, body) = request.into_parts();
    let body = Limited::new(body, MAX_REQUEST_BYTES).collect().await.map_err(std::io::Error::other)?.to_bytes();
    // A request target in absolute form (`GET http://host:port/path`, RFC 9112 §3.2.2) names the same resource as
    // its path and query, which is all the world reads.
    let target = head.uri.path_and_query().map_or("/", |target| target.as_str());
    let url = wiremock::http::Url::parse(&format!("http://downstream{target}")).map_err(std::io::Error::other)?;
    // The request as wiremock hands it over, so the world sees it exactly as it does over wiremock.
    let request = wiremock::Request { url, method: head.method, headers: head.headers, body: body.to_vec() };
    let reply = world.handle(&super::incoming(&request));
    tokio::time::sleep(reply.delay).await;
    if reply.drop_connection {
        return Err(std::io::Error::new(std::io::ErrorKind::ConnectionAborted, "fault: no answer"));
    }
    response(reply)
}

fn response(reply: Reply) -> Result<Response<Body>, std::io::Error> {
    let mut builder = Response::builder().status(reply.status).header("content-type", "application/json");
    if !reply.parts.is_some_and(|parts| parts.chunked) {
        builder = builder.header("content-length", reply.body.len());
    }
    for (name, value) in &reply.headers {
        builder = builder.header(name.as_str(), value.as_str());
    }
    let mut whole = Bytes::from(reply.body);
    let body = match reply.parts {
        None => Full::new(whole).map_err(|never| match never {}).boxed(),
        Some(parts) => {
            let mut rest = whole.split_off(parts.split_at.min(whole.len()));
            let pieces = parts.count.saturating_sub(1).max(1) as usize;
            let size = rest.len().div_ceil(pieces).max(1);
            let mut later = Vec::with_capacity(pieces);
            while !rest.is_empty() {
                later.push(Ok(Frame::data(rest.split_to(size.min(rest.len())))));
            }
            if parts.cut {
                let cut = std::io::Error::new(std::io::ErrorKind::ConnectionAborted, "fault: body_in_two_parts, cut");
                later = vec![Err(cut)];
            }
            let first = futures::stream::once(async move { Ok(Frame::data(whole)) });
            let paced = futures::stream::iter(later).then(move |piece| async move {
                tokio::time::sleep(parts.pause).await;
                piece
            });
            BodyExt::boxed(StreamBody::new(first.chain(paced)))
        }
    };
    builder.body(body).map_err(std::io::Error::other)
}
