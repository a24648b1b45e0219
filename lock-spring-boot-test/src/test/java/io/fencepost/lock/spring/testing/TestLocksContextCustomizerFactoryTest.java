package io.fencepost.lock.spring.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** Spring's context cache keys on the customizer: equal settings share a context, different ones do not. */
class TestLocksContextCustomizerFactoryTest {

    private final TestLocksContextCustomizerFactory factory = new TestLocksContextCustomizerFactory();

    @AutoConfigureTestLocks
    static class InMemoryOne {}

    @AutoConfigureTestLocks
    static class InMemoryTwo {}

    @AutoConfigureTestLocks(store = AutoConfigureTestLocks.Store.POSTGRES)
    static class OnPostgres {}

    static class Unannotated {}

    @AutoConfigureTestLocks(store = AutoConfigureTestLocks.Store.POSTGRES)
    static class Enclosing {

        class NestedTests {}
    }

    @Test
    void testClassesWithTheSameSettingGetEqualCustomizers() {
        assertThat(factory.createContextCustomizer(InMemoryOne.class, List.of()))
                .isEqualTo(factory.createContextCustomizer(InMemoryTwo.class, List.of()))
                .isNotEqualTo(factory.createContextCustomizer(OnPostgres.class, List.of()));
    }

    @Test
    void aNestedTestClassTakesTheSettingOfItsEnclosingClass() {
        assertThat(factory.createContextCustomizer(Enclosing.NestedTests.class, List.of()))
                .isEqualTo(factory.createContextCustomizer(OnPostgres.class, List.of()));
    }

    @Test
    void aTestWithoutTheAnnotationIsLeftAlone() {
        assertThat(factory.createContextCustomizer(Unannotated.class, List.of()))
                .isNull();
    }
}
