use lastmile_core::scenario::{load_str, Format};
use lastmile_core::sim::{run, RunOptions};
fn main() {
    let text = std::fs::read_to_string(std::env::args().nth(1).unwrap()).unwrap();
    let s = load_str(&text, Format::Toml, "x", &[]).expect("scenario");
    let out = run(&s, &RunOptions::default()).expect("run");
    println!("{}", serde_json::to_string_pretty(&out.summary).unwrap());
}
