//! md2info: what an MD2 file holds, as text, JSON, OBJ or glTF (see
//! `md2_wgpu_examples::md2info` for the options).

use std::io::Write as _;

fn main() {
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    if let Err(message) = md2_wgpu_examples::md2info::run(std::env::args_os().skip(1), &mut out) {
        let _ = writeln!(std::io::stderr(), "md2info: {message}");
        std::process::exit(1);
    }
}
