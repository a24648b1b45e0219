package io.fencepost.lock.spring.aop;

import java.lang.reflect.Array;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import org.springframework.context.expression.MethodBasedEvaluationContext;
import org.springframework.core.ParameterNameDiscoverer;
import org.springframework.expression.BeanResolver;
import org.springframework.expression.EvaluationException;
import org.springframework.expression.Expression;

/**
 * The parsed key expression of one {@code @DistributedLock} method, evaluated per call.
 *
 * @param method the annotated method as {@code ClassName.method(ParameterTypes)}, for messages
 * @param specificMethod the method whose arguments the expression reads
 * @param source the expression as written
 * @param expression the parsed expression
 */
record LockKeyExpression(String method, Method specificMethod, String source, Expression expression) {

    /**
     * The keys of one call: one key, or a set of keys taken together when the expression yields a collection or an
     * array.
     *
     * @param keys the keys, in the order the expression gave them
     * @param set whether the expression yielded a collection or an array (even of one key)
     */
    record Keys(List<String> keys, boolean set) {}

    /**
     * Evaluates the key, or the keys, for one call.
     *
     * @throws IllegalArgumentException when the expression fails, yields null or a blank string, or a collection or
     *     array that is empty or holds a null or blank element
     */
    Keys evaluate(
            Object[] args,
            Object target,
            Class<?> targetClass,
            ParameterNameDiscoverer parameterNames,
            BeanResolver beanResolver) {
        LockExpressionRoot root = new LockExpressionRoot(specificMethod, args, target, targetClass);
        MethodBasedEvaluationContext context =
                new MethodBasedEvaluationContext(root, specificMethod, args, parameterNames);
        if (beanResolver != null) {
            context.setBeanResolver(beanResolver);
        }
        Object value;
        try {
            value = expression.getValue(context);
        } catch (EvaluationException e) {
            throw new IllegalArgumentException(
                    "@DistributedLock on " + method + ": key expression '" + source + "' failed: " + e.getMessage(), e);
        }
        if (value instanceof Collection<?> || (value != null && value.getClass().isArray())) {
            List<Object> elements = new ArrayList<>();
            if (value instanceof Collection<?> collection) {
                elements.addAll(collection);
            } else {
                for (int i = 0; i < Array.getLength(value); i++) {
                    elements.add(Array.get(value, i));
                }
            }
            if (elements.isEmpty()) {
                throw new IllegalArgumentException("@DistributedLock on " + method + ": key expression '" + source
                        + "' evaluated to no keys; the method was not run (a set of lock keys must not be empty)");
            }
            List<String> keys = new ArrayList<>(elements.size());
            for (Object element : elements) {
                keys.add(text(element, "key " + (keys.size() + 1) + " of the set"));
            }
            return new Keys(List.copyOf(keys), true);
        }
        return new Keys(List.of(text(value, "")), false);
    }

    private String text(Object value, String what) {
        String text = value == null ? null : value.toString();
        if (text == null || text.isBlank()) {
            throw new IllegalArgumentException("@DistributedLock on " + method + ": key expression '" + source
                    + "' evaluated " + (what.isEmpty() ? "" : what + " ") + "to "
                    + (text == null ? "null" : "a blank string '" + text + "'")
                    + "; the method was not run (a lock key must not be null or blank)");
        }
        return text;
    }
}
