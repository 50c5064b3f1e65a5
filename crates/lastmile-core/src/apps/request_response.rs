//! A web-like request/response application (the survey §2.3 on WAP's
//! user paradigm: "small, specific, focused requests for small chunks"): a client at the
//! flow's destination (the mobile) asks for `objects` objects one after another, each with
//! a request of `request` bytes, and the server at the flow's source sends each object of
//! `object` bytes as soon as its request has arrived whole; after an object arrives whole
//! the client thinks for `think_time` before the next request. The server closes after the
//! last object.
//!
//! One state machine plays both ends, as the other applications play the source: it asks
//! the world to open the connection (the server, as any flow's source does), to write a
//! request at the client (`AppAction::Request`, which over WAP is a WTP transaction asking
//! for an object of the stated size), and to write an object at the server; it hears of
//! bytes delivered at either end (`AppInput::Delivered`). The first request is written at
//! the flow's start, with the connection still opening (a client whose connection is up
//! by the time it asks).
//!
//! The metric is each object's completion time: from its request being written at the
//! client to the object's last byte delivered there (`objects()`). Objects are counted as
//! the flow's bytes (the requests are not).
//!
//! Left out: pipelining and parallel connections, object sizes drawn from a distribution,
//! server think time.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{AppAction, AppEnd, AppInput, AppOutbox};
use crate::engine::SimTime;
use crate::errors::ScenarioError;
use crate::units::{ByteSize, Duration};

/// The most objects one flow may fetch.
pub const OBJECTS_MAX: u32 = 1_000_000;

/// `app = { kind = "request_response", ... }`.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RequestResponseSpec {
    /// Each request's size, sent by the client (the flow's `dst`). Default "300B" (a short
    /// HTTP or WSP GET; the survey's WAP requests are "typically less than 1000 bytes").
    #[serde(default = "default_request")]
    pub request: ByteSize,
    /// Each object's size, sent by the server (the flow's `src`).
    pub object: ByteSize,
    /// How many objects the client fetches, one after another. Default 10.
    #[serde(default = "default_objects")]
    pub objects: u32,
    /// The client's pause between an object's arrival and its next request. Default "0s".
    #[serde(default)]
    pub think_time: Duration,
}

fn default_request() -> ByteSize {
    ByteSize(300)
}
fn default_objects() -> u32 {
    10
}

impl RequestResponseSpec {
    /// The bytes of all the objects.
    pub fn total_bytes(&self) -> u64 {
        self.object.bytes().saturating_mul(u64::from(self.objects))
    }

    /// What the types alone cannot check; paths relative to the `app` table.
    pub fn check(&self) -> Result<(), ScenarioError> {
        for (path, size) in [("request", self.request), ("object", self.object)] {
            if size.bytes() == 0 || size.bytes() > u64::from(u32::MAX) {
                return Err(ScenarioError::bad_value(
                    path,
                    format!("\"{size}\""),
                    "1B to 4294967295B",
                ));
            }
        }
        if !(1..=OBJECTS_MAX).contains(&self.objects) {
            return Err(ScenarioError::bad_value(
                "objects",
                self.objects.to_string(),
                format!("1 to {OBJECTS_MAX}"),
            ));
        }
        Ok(())
    }
}

/// One object's times.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ObjectRecord {
    /// When the client wrote the request.
    pub requested: SimTime,
    /// When the object's last byte reached the client.
    pub completed: Option<SimTime>,
}

/// The request/response state machine.
#[derive(Clone, Debug)]
pub struct RequestResponse {
    spec: RequestResponseSpec,
    start: SimTime,
    started: bool,
    /// Request bytes the server has received, and requests it has answered.
    server_received: u64,
    answered: u32,
    /// Object bytes the client has received.
    client_received: u64,
    objects: Vec<ObjectRecord>,
    next_request: Option<SimTime>,
}

impl RequestResponse {
    pub fn new(start: SimTime, spec: RequestResponseSpec) -> Self {
        RequestResponse {
            spec,
            start,
            started: false,
            server_received: 0,
            answered: 0,
            client_received: 0,
            objects: Vec::new(),
            next_request: None,
        }
    }

    /// Every object requested so far, with its completion.
    pub fn objects(&self) -> &[ObjectRecord] {
        &self.objects
    }

    pub fn handle(&mut self, now: SimTime, input: AppInput, out: &mut AppOutbox) {
        match input {
            AppInput::Timer if !self.started => {
                self.started = true;
                out.actions.push(AppAction::Connect);
                self.request(now, out);
            }
            AppInput::Timer => {
                if self.next_request.is_some_and(|t| t <= now) {
                    self.request(now, out);
                }
            }
            AppInput::Delivered {
                at: AppEnd::Source,
                bytes,
            } => self.on_server_received(bytes, out),
            AppInput::Delivered {
                at: AppEnd::Sink,
                bytes,
            } => self.on_client_received(now, bytes, out),
            AppInput::DatagramLeft => {}
        }
    }

    pub fn poll_timeout(&self) -> Option<SimTime> {
        if self.started {
            self.next_request
        } else {
            Some(self.start)
        }
    }

    fn request(&mut self, now: SimTime, out: &mut AppOutbox) {
        self.next_request = None;
        self.objects.push(ObjectRecord {
            requested: now,
            completed: None,
        });
        out.actions.push(AppAction::Request {
            bytes: self.spec.request.bytes(),
            reply_bytes: self.spec.object.bytes(),
        });
    }

    /// Each request arrived whole is answered with its object; the last closes.
    fn on_server_received(&mut self, bytes: u64, out: &mut AppOutbox) {
        self.server_received += bytes;
        let request = self.spec.request.bytes().max(1);
        while self.answered < self.spec.objects
            && self.server_received >= request * u64::from(self.answered + 1)
        {
            self.answered += 1;
            out.actions.push(AppAction::Write(self.spec.object.bytes()));
            if self.answered == self.spec.objects {
                out.actions.push(AppAction::Close);
            }
        }
    }

    /// Objects arrived whole are recorded; the next request follows after the think time.
    fn on_client_received(&mut self, now: SimTime, bytes: u64, out: &mut AppOutbox) {
        self.client_received += bytes;
        let object = self.spec.object.bytes().max(1);
        let whole = (self.client_received / object) as usize;
        let mut finished_one = false;
        for record in self.objects.iter_mut().take(whole) {
            if record.completed.is_none() {
                record.completed = Some(now);
                finished_one = true;
            }
        }
        let more = (self.objects.len() as u32) < self.spec.objects;
        if finished_one && more && whole == self.objects.len() {
            let think = self.spec.think_time.sim();
            if think.is_zero() {
                self.request(now, out);
            } else {
                self.next_request = Some(now + think);
            }
        }
    }
}
