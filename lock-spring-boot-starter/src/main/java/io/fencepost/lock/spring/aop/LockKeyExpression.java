package io.fencepost.lock.spring.aop;

import java.lang.reflect.Method;
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
     * Evaluates the key for one call.
     *
     * @throws IllegalArgumentException when the expression fails or yields null or a blank string
     */
    String evaluate(
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
        String text = value == null ? null : value.toString();
        if (text == null || text.isBlank()) {
            throw new IllegalArgumentException("@DistributedLock on " + method + ": key expression '" + source
                    + "' evaluated to " + (text == null ? "null" : "a blank string '" + text + "'")
                    + "; the method was not run (a lock key must not be null or blank)");
        }
        return text;
    }
}
