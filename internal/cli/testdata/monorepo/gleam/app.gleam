pub fn main() { Nil }
