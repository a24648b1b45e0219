/**
 * High availability: a three-node Patroni cluster with etcd, each machine a network namespace, so that the lock
 * table lives on a replicated primary that fails over, and links between machines can be cut as in a real network.
 * The randomized checker runs against it under switchovers, failovers and partitions.
 */
package io.fencepost.lock.reliability.cluster;
