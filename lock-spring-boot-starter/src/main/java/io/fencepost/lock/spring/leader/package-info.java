/**
 * Leader election in Spring: the groups configured under {@code fencepost.leader.groups} join when the context
 * starts and leave when it stops; leadership is published as {@link LeadershipGrantedEvent} and
 * {@link LeadershipRevokedEvent}, both a {@link LeadershipEvent}; {@link LeaderOnly @LeaderOnly} runs a method (such as
 * a {@code @Scheduled} one) only on the leader.
 */
package io.fencepost.lock.spring.leader;
