/** Spring Boot integration of Fencepost: the annotation advisor, auto-configuration and observability. */
package io.fencepost.lock.spring;
