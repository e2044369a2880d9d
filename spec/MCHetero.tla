------------------------------ MODULE MCHetero ------------------------------
(***************************************************************************)
(* Model-checking wrapper for requests that differ: each has its own       *)
(* prompt length and its own reference output, so a page, a token or a    *)
(* checkpoint of one request cannot stand in for another's.  Requests are  *)
(* named here (r1, r2, r3), which rules out request symmetry: models of    *)
(* this wrapper use worker symmetry only.                                  *)
(***************************************************************************)
EXTENDS MCLumen

CONSTANTS r1, r2, r3

(***************************************************************************)
(* Bound 2 for heterogeneous models.  Prompts of one and two pages (so a  *)
(* restore can bring back a prompt page and an output page, or two prompt *)
(* pages), outputs of three tokens (so a verified draft can add two tokens *)
(* at once after the first), all reference tokens distinct.               *)
(***************************************************************************)
HeteroPromptLen == (r1 :> 1) @@ (r2 :> 2) @@ (r3 :> 1)
HeteroRef == (r1 :> <<"t1", "t2", "t3">>) @@ (r2 :> <<"t4", "t5", "t6">>) @@ (r3 :> <<"t7", "t8", "t9">>)
MCHeteroPromptLen == [r \in Requests |-> HeteroPromptLen[r]]
MCHeteroRef == [r \in Requests |-> HeteroRef[r]]

=============================================================================
