module "network" {
  source     = "./modules/network"
  cidr_block = var.cidr_block
}

variable "cidr_block" {
  type    = string
  default = "10.20.0.0/16"
}

output "network_id" {
  value = module.network.id
}
