package io.fencepost.lock.spring.aop;

import java.lang.reflect.Method;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.springframework.core.ParameterNameDiscoverer;
import org.springframework.expression.spel.SpelNode;
import org.springframework.expression.spel.ast.CompoundExpression;
import org.springframework.expression.spel.ast.Indexer;
import org.springframework.expression.spel.ast.InlineMap;
import org.springframework.expression.spel.ast.Projection;
import org.springframework.expression.spel.ast.PropertyOrFieldReference;
import org.springframework.expression.spel.ast.Selection;
import org.springframework.expression.spel.ast.VariableReference;
import org.springframework.expression.spel.standard.SpelExpression;

/**
 * Checks, at start-up, the names a key expression refers to: every variable must be a parameter of the method, and
 * every bare name a property of the root object. Either mistake would otherwise fail or lock on "null" at every call.
 */
final class LockKeyReferences {

    /** The properties of {@link LockExpressionRoot}. */
    private static final List<String> ROOT_PROPERTIES =
            List.of("method", "methodName", "args", "target", "targetClass");

    private static final Pattern POSITIONAL = Pattern.compile("[ap](\\d+)");

    private final ParameterNameDiscoverer parameterNames;

    LockKeyReferences(ParameterNameDiscoverer parameterNames) {
        this.parameterNames = parameterNames;
    }

    /**
     * A variable the method does not have would evaluate to null on every call, and a bare name that is not a
     * property of the root object (usually an unquoted literal) would fail on every call: refuse both now.
     */
    void check(SpelExpression expression, String keySource, Method specific, String method) {
        Set<String> rootProperties = new HashSet<>();
        collectRootProperties(expression.getAST(), rootProperties);
        rootProperties.removeAll(ROOT_PROPERTIES);
        if (!rootProperties.isEmpty()) {
            String name = rootProperties.iterator().next();
            throw new InvalidDistributedLockException(
                    method,
                    "key expression '" + keySource + "' refers to '" + name + "', which is neither a parameter nor a"
                            + " property of the root object " + ROOT_PROPERTIES + "; quote literal text, as in"
                            + " \"'" + keySource.replace("'", "''") + "'\", and refer to parameters as #name",
                    null);
        }
        Set<String> variables = new HashSet<>();
        collectVariables(expression.getAST(), variables);
        variables.remove("root");
        variables.remove("this");
        if (variables.isEmpty()) {
            return;
        }
        int count = specific.getParameterCount();
        String[] names = parameterNames.getParameterNames(specific);
        for (String variable : variables) {
            var positional = POSITIONAL.matcher(variable);
            if (positional.matches() && Integer.parseInt(positional.group(1)) < count) {
                continue;
            }
            if (names == null) {
                throw new InvalidDistributedLockException(
                        method,
                        "key expression '" + keySource + "' refers to #" + variable + ", but the parameter names of"
                                + " this method are not available; compile with -parameters (Spring Boot's build"
                                + " plugins do) or refer to arguments by position (#p0)",
                        null);
            }
            if (!Arrays.asList(names).contains(variable)) {
                throw new InvalidDistributedLockException(
                        method,
                        "key expression '" + keySource + "' refers to #" + variable + ", which is not a parameter;"
                                + " the parameters are "
                                + Arrays.stream(names).map(n -> "#" + n).collect(Collectors.joining(", ", "[", "]")),
                        null);
            }
        }
    }

    /** Names resolved against the root object: bare ones, and the first of a dotted chain. */
    private static void collectRootProperties(SpelNode node, Set<String> names) {
        if (node instanceof PropertyOrFieldReference reference) {
            names.add(reference.getName());
            return;
        }
        if (node instanceof Selection || node instanceof Projection || node instanceof InlineMap) {
            return; // names inside refer to elements or are map keys
        }
        if (node instanceof Indexer) {
            for (int i = 0; i < node.getChildCount(); i++) {
                if (!(node.getChild(i) instanceof PropertyOrFieldReference)) { // a bare name in [] is a literal
                    collectRootProperties(node.getChild(i), names);
                }
            }
            return;
        }
        if (node instanceof CompoundExpression) {
            if (node.getChildCount() > 0) {
                collectRootProperties(node.getChild(0), names);
            }
            for (int i = 1; i < node.getChildCount(); i++) {
                SpelNode step = node.getChild(i);
                if (step instanceof Indexer) {
                    collectRootProperties(step, names);
                } else if (!(step instanceof PropertyOrFieldReference)) {
                    for (int j = 0; j < step.getChildCount(); j++) {
                        collectRootProperties(step.getChild(j), names);
                    }
                }
            }
            return;
        }
        for (int i = 0; i < node.getChildCount(); i++) {
            collectRootProperties(node.getChild(i), names);
        }
    }

    private static void collectVariables(SpelNode node, Set<String> variables) {
        if (node instanceof VariableReference) {
            String text = node.toStringAST();
            if (text.startsWith("#")) {
                variables.add(text.substring(1));
            }
        }
        for (int i = 0; i < node.getChildCount(); i++) {
            collectVariables(node.getChild(i), variables);
        }
    }
}
