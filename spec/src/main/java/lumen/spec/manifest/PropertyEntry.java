package lumen.spec.manifest;

import com.fasterxml.jackson.annotation.JsonPropertyOrder;

/**
 * One property of docs/design.md, section 3 as the spec states it.
 *
 * @param id       the property ID ("S4")
 * @param name     its name ("HolderIsNotServer")
 * @param operator the TLA+ operator that states it ("S4_HolderIsNotServerInv")
 * @param module   the module that defines the operator
 * @param kind     "invariant", "action" or "liveness"
 */
@JsonPropertyOrder({"id", "name", "operator", "module", "kind"})
public record PropertyEntry(String id, String name, String operator, String module, String kind) {
}
