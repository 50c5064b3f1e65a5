//! The wireless hop: link layers (and, later, the half-duplex medium and MACs) as pure state
//! machines. Layers meet at the interfaces of the papers: a link layer and its MAC exchange
//! the TRANS / WAIT / tx-success / tx-failure signals of TULIP (Parsa & Garcia-Luna-Aceves,
//! §3.2–3.3), defined once in [`signals`].
//!
//! Left out for now (later issues): the channel, the MACs (ideal, DCF, FAMA-NCS) and the
//! wiring of these machines into the engine.

pub mod link;
pub mod signals;
