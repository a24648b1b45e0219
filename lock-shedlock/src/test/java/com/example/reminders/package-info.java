/**
 * The example of docs/migrating-from-shedlock.md, which quotes these classes verbatim: an application's scheduling
 * configuration and a {@code @SchedulerLock} task on Fencepost. {@code MigrationGuideTest} runs it.
 */
package com.example.reminders;
