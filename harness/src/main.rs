//! The `callproof` command line.

fn main() {
    println!("callproof");
}
