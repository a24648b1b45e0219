/**
 * The payments ledger: accounts, transfers that lock both their accounts and fence every write, and a settlement
 * job that runs once per tick across all instances.
 */
package io.fencepost.sample.ledger;
