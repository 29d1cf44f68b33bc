variable "greeting" {
  type    = string
  default = "hello"
}
