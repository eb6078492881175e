module gate-ws

go 1.21

require (
	github.com/dobyte/due/locate/redis/v2 latest
	github.com/dobyte/due/network/ws/v2 latest
	github.com/dobyte/due/registry/consul/v2 latest
	github.com/dobyte/due/v2 latest
)
