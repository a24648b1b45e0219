package io.fencepost.lock.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class TableNameTest {

    @ParameterizedTest
    @ValueSource(strings = {"distributed_lock", "_locks", "app_locks_2", "a", "user", "select"})
    void acceptsLowerCaseUnquotedIdentifiers(String name) {
        assertThat(TableName.of(name).table()).isEqualTo(name);
    }

    @Test
    void acceptsFortyEightCharactersSoThatEveryDerivedNameFitsSixtyThree() {
        TableName name = TableName.of("t".repeat(48));

        assertThat(name.schemaHistoryTable()).hasSizeLessThanOrEqualTo(63);
        assertThat(name.sequence()).hasSizeLessThanOrEqualTo(63);
        assertThat(name.waiterChannel(new WaiterTag(0xFFFF))).hasSizeLessThanOrEqualTo(63);
    }

    @Test
    void aWaiterTagMarksTheTopOfARegistrationIdAsItsFirstHexDigitsAndKeepsTheRest() {
        WaiterTag tag = new WaiterTag(0x0a7f);
        String id = "fedcba98-7654-4321-8fed-cba987654321";

        assertThat(tag.mark(id)).hasToString("0a7fba98-7654-4321-8fed-cba987654321");
        assertThat(TableName.of("locks").waiterChannel(tag)).isEqualTo("fencepost_locks_0a7f");
        assertThatThrownBy(() -> new WaiterTag(0x10000)).hasMessageContaining("16 bits");
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "x;drop",
                "Locks",
                "1locks",
                "app-locks",
                "app.locks",
                "\"locks\"",
                "lоcks", // a Cyrillic o
                "",
                " locks",
                "tttttttttttttttttttttttttttttttttttttttttttttttttt"
            })
    void rejectsAnythingElseNamingTheValueAndTheRule(String name) {
        assertThatIllegalArgumentException()
                .isThrownBy(() -> TableName.of(name))
                .withMessage("table name '" + name + "' is not a valid identifier: use lower-case letters, digits"
                        + " and _, starting with a letter or _, at most 48 characters");
    }

    @Test
    void rejectsNull() {
        assertThatIllegalArgumentException()
                .isThrownBy(() -> TableName.of(null))
                .withMessageStartingWith("table name 'null' is not a valid identifier");
    }

    @Test
    void derivesTheSequenceHistoryTableAndQuotedForms() {
        TableName name = TableName.of("app_locks");

        assertThat(name.sequence()).isEqualTo("app_locks_fence_seq");
        assertThat(name.schemaHistoryTable()).isEqualTo("app_locks_schema_history");
        assertThat(name.quotedTable()).isEqualTo("\"app_locks\"");
        assertThat(name.quotedSequence()).isEqualTo("\"app_locks_fence_seq\"");
    }

    @Test
    void advisoryClassIdIsStableNonNegativeAndDiffersPerTable() {
        assertThat(TableName.of("distributed_lock").advisoryClassId())
                .isEqualTo(("fencepost:distributed_lock".hashCode()) & Integer.MAX_VALUE)
                .isNotNegative();
        assertThat(TableName.of("app_locks").advisoryClassId())
                .isNotEqualTo(TableName.of("distributed_lock").advisoryClassId());
    }
}
