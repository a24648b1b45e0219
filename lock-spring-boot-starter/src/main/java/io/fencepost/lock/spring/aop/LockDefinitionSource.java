package io.fencepost.lock.spring.aop;

import io.fencepost.lock.DistributedLock;
import io.fencepost.lock.LockOptions;
import io.fencepost.lock.OnLocked;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.config.ConfigurableBeanFactory;
import org.springframework.boot.convert.DurationStyle;
import org.springframework.core.DefaultParameterNameDiscoverer;
import org.springframework.core.MethodClassKey;
import org.springframework.core.ParameterNameDiscoverer;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.env.PropertyResolver;
import org.springframework.expression.ParseException;
import org.springframework.expression.spel.standard.SpelExpression;
import org.springframework.expression.spel.standard.SpelExpressionParser;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;
import org.springframework.util.StringUtils;

/**
 * Finds and parses the {@code @DistributedLock} of a method, once per method and target class. Parsing checks
 * everything that can be checked without a call, so that mistakes fail the start-up and name the method.
 */
final class LockDefinitionSource {

    private static final Object NONE = new Object();

    private final SpelExpressionParser parser = new SpelExpressionParser();

    private final ParameterNameDiscoverer parameterNames = new DefaultParameterNameDiscoverer();

    private final Map<MethodClassKey, Object> cache = new ConcurrentHashMap<>();

    private volatile PropertyResolver environment;

    private volatile ConfigurableBeanFactory beanFactory;

    /** Resolves {@code ${...}} in durations, strictly: an unresolvable placeholder fails. */
    void setEnvironment(PropertyResolver environment) {
        this.environment = environment;
    }

    /** Resolves {@code ${...}} in durations as {@code @Value} does, once the bean factory can. */
    void setBeanFactory(ConfigurableBeanFactory beanFactory) {
        this.beanFactory = beanFactory;
    }

    ParameterNameDiscoverer parameterNames() {
        return parameterNames;
    }

    /**
     * The lock of {@code method} when invoked on {@code targetClass}, or null when it is not locked.
     *
     * @throws InvalidDistributedLockException when the annotation cannot be used as written
     */
    LockDefinition find(Method method, Class<?> targetClass) {
        Class<?> userClass = targetClass != null ? ClassUtils.getUserClass(targetClass) : method.getDeclaringClass();
        MethodClassKey cacheKey = new MethodClassKey(method, userClass);
        Object cached = cache.get(cacheKey);
        if (cached == null) {
            LockDefinition parsed = parse(method, userClass);
            cached = parsed != null ? parsed : NONE;
            cache.put(cacheKey, cached);
        }
        return cached == NONE ? null : (LockDefinition) cached;
    }

    /** Every lock parsed so far (one per method and target class). */
    List<LockDefinition> definitions() {
        List<LockDefinition> definitions = new ArrayList<>();
        for (Object value : cache.values()) {
            if (value instanceof LockDefinition definition) {
                definitions.add(definition);
            }
        }
        return definitions;
    }

    /**
     * Parses every locked method of {@code type} (declared in it or its superclasses).
     *
     * @return the locked methods found
     */
    List<LockDefinition> scan(Class<?> type) {
        Class<?> userClass = ClassUtils.getUserClass(type);
        List<LockDefinition> found = new ArrayList<>();
        ReflectionUtils.doWithMethods(
                userClass,
                method -> {
                    LockDefinition definition = find(method, userClass);
                    if (definition != null) {
                        found.add(definition);
                    }
                },
                method -> !method.isBridge() && !method.isSynthetic() && !ReflectionUtils.isObjectMethod(method));
        return found;
    }

    private LockDefinition parse(Method method, Class<?> targetClass) {
        if (ReflectionUtils.isObjectMethod(method)) {
            return null;
        }
        Method specific = AopUtils.getMostSpecificMethod(method, targetClass);
        DistributedLock annotation = AnnotatedElementUtils.findMergedAnnotation(specific, DistributedLock.class);
        if (annotation == null && specific != method) {
            annotation = AnnotatedElementUtils.findMergedAnnotation(method, DistributedLock.class);
        }
        if (annotation != null) {
            if (Modifier.isPrivate(specific.getModifiers())) {
                throw new InvalidDistributedLockException(
                        describe(specific, targetClass),
                        "a private method cannot be intercepted by a Spring proxy, so it would run unlocked; make it"
                                + " public, or move the locked code to a public method of another bean",
                        null);
            }
            if (Modifier.isStatic(specific.getModifiers())) {
                throw new InvalidDistributedLockException(
                        describe(specific, targetClass),
                        "a static method cannot be intercepted by a Spring proxy, so it would run unlocked; make it"
                                + " an instance method of a bean",
                        null);
            }
        } else {
            // A type-level annotation covers the public instance methods declared in the annotated type.
            if (!Modifier.isPublic(specific.getModifiers()) || Modifier.isStatic(specific.getModifiers())) {
                return null;
            }
            annotation =
                    AnnotatedElementUtils.findMergedAnnotation(specific.getDeclaringClass(), DistributedLock.class);
            if (annotation == null && specific != method) {
                annotation =
                        AnnotatedElementUtils.findMergedAnnotation(method.getDeclaringClass(), DistributedLock.class);
            }
            if (annotation == null) {
                return null;
            }
        }
        return parse(annotation, specific, targetClass);
    }

    private LockDefinition parse(DistributedLock annotation, Method specific, Class<?> targetClass) {
        String method = describe(specific, targetClass);
        checkReturnType(specific, method);
        String keySource = annotation.key();
        if (!StringUtils.hasText(keySource)) {
            throw new InvalidDistributedLockException(
                    method,
                    "key expression is blank; give a SpEL expression such as \"'report'\" (a quoted literal) or"
                            + " \"'invoice:' + #id\"",
                    null);
        }
        SpelExpression key;
        try {
            key = (SpelExpression) parser.parseExpression(keySource);
        } catch (ParseException | IllegalStateException e) {
            throw new InvalidDistributedLockException(
                    method,
                    "key expression '" + keySource + "' could not be parsed: " + e.getMessage()
                            + " (keys are SpEL: quote literals, as in \"'report'\" or \"'invoice:' + #id\")",
                    e);
        }
        new LockKeyReferences(parameterNames).check(key, keySource, specific, method);
        if (annotation.fenceTransaction()) {
            checkFenceable(annotation, specific, method);
        }
        String name = StringUtils.hasText(annotation.name())
                ? annotation.name()
                : className(targetClass) + "." + specific.getName();
        // The annotation's own values over the application's defaults; an empty duration keeps the default.
        Duration leaseTime = duration("leaseTime", annotation.leaseTime(), method);
        Duration waitTime = duration("waitTime", annotation.waitTime(), method);
        Duration minHoldTime = duration("minHoldTime", annotation.minHoldTime(), method);
        Duration maxHoldTime = duration("maxHoldTime", annotation.maxHoldTime(), method);
        Consumer<LockOptions.Builder> options = builder -> {
            if (leaseTime != null) {
                builder.leaseTime(leaseTime);
            }
            if (waitTime != null) {
                builder.waitTime(waitTime);
            }
            if (minHoldTime != null) {
                builder.minHoldTime(minHoldTime);
            }
            if (maxHoldTime != null) {
                builder.maxHoldTime(maxHoldTime);
            }
            builder.renew(annotation.renew())
                    .name(name)
                    .fair(annotation.fair())
                    .shared(annotation.shared())
                    .permits(annotation.permits())
                    .reentrant(annotation.reentrant())
                    .skipsWhenBusy(annotation.onLocked() == OnLocked.SKIP);
        };
        return new LockDefinition(
                new LockKeyExpression(method, specific, keySource, key),
                new LockOptionsTemplate(method, options),
                annotation.onLocked(),
                name,
                annotation.interruptOnLoss(),
                annotation.fenceTransaction(),
                targetClass);
    }

    /** What a fenced transaction needs of the annotation itself; the transaction is checked once the beans exist. */
    private static void checkFenceable(DistributedLock annotation, Method specific, String method) {
        if (annotation.shared() || annotation.permits() != 1) {
            throw new InvalidDistributedLockException(
                    method,
                    "fenceTransaction = true binds a transaction to an exclusive lease, but the lock is "
                            + (annotation.shared() ? "shared" : annotation.permits() + " permits")
                            + ": drop shared/permits or fenceTransaction",
                    null);
        }
        if (CompletionStage.class.isAssignableFrom(specific.getReturnType())) {
            throw new InvalidDistributedLockException(
                    method,
                    "fenceTransaction = true needs the transaction to commit before the method returns, but it"
                            + " returns a " + specific.getReturnType().getSimpleName()
                            + ": make it synchronous or drop fenceTransaction",
                    null);
        }
    }

    private static void checkReturnType(Method specific, String method) {
        for (Class<?> type = specific.getReturnType(); type != null; type = type.getSuperclass()) {
            if (isReactive(type)) {
                throw new InvalidDistributedLockException(
                        method,
                        "reactive return types are not supported: the lease would be released when the publisher is"
                                + " returned, before it runs; lock inside the pipeline with LockManager.withLock",
                        null);
            }
        }
    }

    private static boolean isReactive(Class<?> type) {
        if (type.getName().equals("org.reactivestreams.Publisher")) {
            return true;
        }
        for (Class<?> ifc : type.getInterfaces()) {
            if (isReactive(ifc)) {
                return true;
            }
        }
        return false;
    }

    private Duration duration(String attribute, String raw, String method) {
        if (!StringUtils.hasText(raw)) {
            return null;
        }
        String value;
        try {
            value = resolvePlaceholders(raw);
        } catch (IllegalArgumentException e) {
            throw new InvalidDistributedLockException(
                    method, attribute + " '" + raw + "' could not be resolved: " + e.getMessage(), e);
        }
        if (value.contains("${")) {
            throw new InvalidDistributedLockException(
                    method, attribute + " '" + raw + "' could not be resolved: no property for '" + value + "'", null);
        }
        try {
            return DurationStyle.detectAndParse(value.trim());
        } catch (IllegalArgumentException e) {
            throw new InvalidDistributedLockException(
                    method,
                    attribute + " '" + raw + "'" + (value.equals(raw) ? "" : " (resolved to '" + value + "')")
                            + " is not a duration; use a value such as 30s, 500ms, 1m or PT30S",
                    e);
        }
    }

    /**
     * Through the bean factory's resolvers (property sources of placeholder configurers included) when it has any,
     * else through the environment.
     */
    private String resolvePlaceholders(String raw) {
        ConfigurableBeanFactory factory = beanFactory;
        if (factory != null && factory.hasEmbeddedValueResolver()) {
            String resolved = factory.resolveEmbeddedValue(raw);
            return resolved != null ? resolved : raw;
        }
        PropertyResolver resolver = environment;
        return resolver != null ? resolver.resolveRequiredPlaceholders(raw) : raw;
    }

    /** {@code ClassName.method(ParameterTypes)}, as messages name a method. */
    static String describe(Method method, Class<?> targetClass) {
        String parameters = Arrays.stream(method.getParameterTypes())
                .map(Class::getSimpleName)
                .collect(Collectors.joining(", "));
        return className(targetClass) + "." + method.getName() + "(" + parameters + ")";
    }

    /** The simple name, or the short qualified one for anonymous classes. */
    private static String className(Class<?> type) {
        String simple = type.getSimpleName();
        return simple.isEmpty() ? ClassUtils.getShortName(type) : simple;
    }
}
