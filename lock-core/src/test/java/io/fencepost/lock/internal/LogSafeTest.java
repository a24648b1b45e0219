package io.fencepost.lock.internal;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class LogSafeTest {

    @Test
    void escapesLineBreaksAndOtherControlCharactersOnly() {
        assertThat(LogSafe.text("invoice:42")).isEqualTo("invoice:42");
        assertThat(LogSafe.text("schlüssel/ключ/鍵")).isEqualTo("schlüssel/ключ/鍵");
        assertThat(LogSafe.text("a\r\nFAKE")).isEqualTo("a\\u000d\\u000aFAKE");
        assertThat(LogSafe.text("a\tb\u0085c\u2028d\u2029e\u001b[31m"))
                .isEqualTo("a\\u0009b\\u0085c\\u2028d\\u2029e\\u001b[31m");
        assertThat(LogSafe.text(null)).isEqualTo("null");
    }
}
