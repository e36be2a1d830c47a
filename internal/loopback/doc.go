// Package loopback tells loopback hosts and origins, and makes and checks
// the bearer tokens that guard the local endpoints.
package loopback
