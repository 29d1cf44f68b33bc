output "message" {
  value = var.greeting
}

output "broken" {
  value = var.greeting
