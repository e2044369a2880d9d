package lumen.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** The Java vocabulary and the TLA+ spec must name the same states, phases, actions and properties. */
class VocabularyMatchesSpecTest {

    private static final Path SPEC = Path.of(System.getProperty("lumen.specDir", "../spec"));

    private static String module(String name) throws IOException {
        return Files.readString(SPEC.resolve(name + ".tla"));
    }

    private static boolean defines(String text, String operator) {
        return Pattern.compile("(?m)^" + Pattern.quote(operator) + "(\\(.*\\))?\\s*==").matcher(text).find();
    }

    private static Set<String> stringSet(String text, String operator) {
        Matcher m = Pattern.compile(Pattern.quote(operator) + "\\s*==\\s*\\{([^}]*)}").matcher(text);
        assertThat(m.find()).as(operator + " is not defined as a set of strings").isTrue();
        Set<String> values = new LinkedHashSet<>();
        Matcher s = Pattern.compile("\"([A-Z_]+)\"").matcher(m.group(1));
        while (s.find()) {
            values.add(s.group(1));
        }
        return values;
    }

    @Test
    void everyPropertyIsDefinedInItsModule() throws IOException {
        for (PropertyId p : PropertyId.values()) {
            assertThat(defines(module(p.specModule()), p.specOperator()))
                    .as(p.specOperator() + " is not defined in " + p.specModule() + ".tla").isTrue();
        }
    }

    @Test
    void everyActionIsASpecOperator() throws IOException {
        String all = String.join("\n", module("Cluster"), module("CheckpointPlacement"),
                module("FailureRouting"), module("DraftHandover"), module("GrayFailure"));
        for (Action a : Action.values()) {
            assertThat(defines(all, a.specName())).as(a.specName() + " is not a spec action").isTrue();
        }
    }

    @Test
    void workerStatesMatch() throws IOException {
        Set<String> java = new LinkedHashSet<>(Arrays.stream(WorkerState.values()).map(Enum::name).toList());
        assertThat(java).isEqualTo(stringSet(module("Cluster"), "WorkerStates"));
    }

    @Test
    void phasesMatchExceptTheRuntimeOnlyPrefill() throws IOException {
        Set<String> java = new LinkedHashSet<>(Arrays.stream(RequestPhase.values()).map(Enum::name).toList());
        java.remove(RequestPhase.PREFILL.name());
        assertThat(java).isEqualTo(stringSet(module("Cluster"), "Phases"));
    }

    @Test
    void operatorNamesFollowTheIdRule() {
        assertThat(PropertyId.S4.specOperator()).isEqualTo("S4_HolderIsNotServerInv");
        assertThat(PropertyId.A2.specOperator()).isEqualTo("A2_RoutingFollowsRuleProp");
        assertThat(PropertyId.L1.specOperator()).isEqualTo("L1_EveryRequestCompletes");
        assertThat(PropertyId.S10.label()).isEqualTo("S10 NoServingBeforeFullModel");
    }
}
