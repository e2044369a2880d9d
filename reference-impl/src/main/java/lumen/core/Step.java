package lumen.core;

/** One action taken: the next state and the event it emits. */
public record Step(ClusterState state, Event event) {}
