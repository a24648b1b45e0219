/** Spring MVC: answers a busy lock as a problem detail instead of a server error. */
package io.fencepost.lock.spring.web;
