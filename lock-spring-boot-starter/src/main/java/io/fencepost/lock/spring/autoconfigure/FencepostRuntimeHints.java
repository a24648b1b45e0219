package io.fencepost.lock.spring.autoconfigure;

import io.fencepost.lock.spring.aop.LockExpressionRoot;
import org.springframework.aot.hint.MemberCategory;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;

/**
 * What an ahead-of-time processed application (a native image) cannot discover by itself: the schema migration and
 * plain script that lock-jdbc reads from its jar, and the root object that {@code @DistributedLock} key expressions
 * read by reflection ({@code #root.methodName}, {@code #root.args}, ...).
 */
class FencepostRuntimeHints implements RuntimeHintsRegistrar {

    @Override
    public void registerHints(RuntimeHints hints, ClassLoader classLoader) {
        hints.resources()
                .registerPattern("io/fencepost/lock/jdbc/migration/*.sql")
                .registerPattern("io/fencepost/lock/jdbc/schema-postgresql.sql");
        hints.reflection().registerType(LockExpressionRoot.class, MemberCategory.INVOKE_PUBLIC_METHODS);
    }
}
