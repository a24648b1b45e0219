/**
 * The example of docs/migrating-from-spring-integration.md, which quotes these classes verbatim: the lock registry and
 * leader initiator beans, and a service that settles under the registry's lock. {@code MigrationGuideTest} runs it.
 */
package com.example.orders;
