package io.fencepost.lock.spring.autoconfigure;

/**
 * A {@code fencepost.*} property whose value Fencepost cannot use; the start-up fails with it, and
 * {@link InvalidLockPropertyFailureAnalyzer} reports the property, the value, the rule and the fix.
 */
public final class InvalidLockPropertyException extends IllegalStateException {

    private final String property;

    private final String value;

    private final String rule;

    private final String fix;

    /**
     * @param property the property's canonical name, such as {@code fencepost.lease-time}
     * @param value the value as written in the configuration
     * @param rule what a valid value is, or what is wrong with this one
     * @param fix what to set instead
     */
    InvalidLockPropertyException(String property, String value, String rule, String fix) {
        super("Invalid value '" + value + "' for " + property + ": " + rule);
        this.property = property;
        this.value = value;
        this.rule = rule;
        this.fix = fix;
    }

    public String property() {
        return property;
    }

    public String value() {
        return value;
    }

    public String rule() {
        return rule;
    }

    public String fix() {
        return fix;
    }
}
