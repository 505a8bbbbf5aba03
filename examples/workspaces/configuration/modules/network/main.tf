variable "cidr_block" {
  type = string
}

resource "terraform_data" "network" {
  input = var.cidr_block
}

output "id" {
  value = terraform_data.network.id
}
