fun main() {}
