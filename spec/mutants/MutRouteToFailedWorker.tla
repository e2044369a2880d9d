------------------------------ MODULE MutRouteToFailedWorker ------------------------------
(* Mutant for S3_NeverServedByDeadWorkerInv: Routing uses a stale membership view that still lists failed workers. *)
(* One definition is overridden in MutRouteToFailedWorker.cfg: RouteTargets. *)
EXTENDS MCLumen

MutRouteTargets == Workers

=============================================================================
