package lumen.runtime;

/** A request of the workload: when it arrives, its prompt and output lengths, its seed. */
public record Arrival(int id, double atMs, int promptLen, int outLen, long seed) {}
