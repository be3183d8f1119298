import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SharedCompanionApp } from '../../../scripts/sync-sim/companion-host';
import { failed, runOne } from '../../../scripts/sync-sim/simulation';

/**
 * Seeds the simulation found failing (issue #23). The fixed ones stay here as plain tests, so
 * the bug stays fixed (each bug also has a replay test in test/plugin/sync/); the ones still
 * failing are `it.fails`: when a fix makes one pass, its test fails here, and it becomes a plain
 * test.
 */
const FIXED_SEEDS: ReadonlyArray<readonly [seed: number, what: string]> = [
  [207177110, 'a file missing on a device (projects/plan.md): a shadowing file moved, app killed'],
  [207177374, 'a conflict copy of Log.md: a note back after its delete lost, another at its path'],
  [207178350, 'a conflict copy of a conflict copy: a case-only rename with no event on Linux'],
  [39000105, 'a note back: a move onto a case variant of a deleted note’s path taken for it'],
  [38000032, 'a false conflict copy: edits moved to a copy, the app died, answered again'],
  [7300050, 'no lost lines: a note took the companion’s version, the app died, then edited'],
  [38000279, 'a copy of a copy: a new note and its copy both edited as the answer came'],
  [8100018, 'a file missing on a device (inbox.md): a new note kept it out, then deleted'],
  [8100452, 'a file missing on a device (Shopping.md): a deleted note’s record written over'],
  // The same mechanism (traced): a companion note written over a deleted note's record.
  [8100579, 'a file missing on a device (Log.md): renamed, deleted, its path’s record reused'],
  [8100032, 'a note back (projects/plan.md): its record written over by an older note'],
  [8100854, 'a conflict copy back: deleted against the version sent, before edits moved in'],
  [8100832, 'a false conflict copy of Ideas.md: a new note where a kept delete’s file was'],
  [8100889, 'a false conflict copy of Log.md: typed in as the companion’s version came'],
  // Not traced one by one: failing before the fix of 38000279 above, passing with it.
  [39000200, 'a false conflict copy of Log.md'],
  [34000151, 'a false conflict copy of Shopping.md'],
  [34000038, 'a copy of a copy of Log.md: a crash mid conflict settle'],
  // Not a bug fixed but one kept out: recording a deleted note's own copy as gone (for seed
  // 35000166) deleted two lines the server had written into that copy (a rename's answer).
  [60000468, 'no lost lines: a copy of a note deleted here keeps the lines merged into it'],
  // Fixed by recording it gone only when the copy holds just what was sent (an edit's answer).
  [35000166, 'a conflict copy back: a note deleted here as its version became the copy'],
  [708963286, 'two lost lines (L12, L13 by dev2) of Trip.conflict: edits of the path moved in'],
  // Passing since a record's file is never another record's case variant (seed 39000472's
  // fix); their own mechanisms were not traced again.
  [31000071, 'a copy of a copy: a note deleted and made again at its path, then moved'],
  [32000257, 'a file missing on a device (Inbox.md) and a copy of a copy'],
  // L4 lost: a case variant taken for a gone note's file. Its copy of a deleted note (a record
  // that followed another file's rename) is gone since a resent answer records a copy once;
  // that part was not traced again.
  [39000472, 'a lost line (L4, by the server) and a conflict copy of Inbox.md back'],
  // Moves made while the app was closed, found on start (each replayed in
  // sync-sim-replays.test.ts). The engine's extra calls shift the simulation's generator: these
  // seeds now replay other scenarios, which pass.
  [34000007, 'a note back: moved while closed, its remote edit written at its old path'],
  [34000396, 'a note back: moved onto a new note’s path while closed, taken for its edits'],
  // Passing since the same change, which changed the scenario it replays; the failure traced
  // (a case-sensitive vault: a note deleted and another moved, edited, onto a case variant of
  // its path, app closed, taken for a case-only rename and rewrite) is not fixed.
  [32000214, 'a false conflict copy of Shopping.md'],
  // Its false copy first (a new note edited as it took the companion's version); then, the run
  // changed by that fix, a copy back and missing on dev1 (a pulled file over a deleted one's
  // record).
  [38000197, 'a false conflict copy of Projects/Plan.md'],
  [7500292, 'a copy of a copy of Inbox.conflict: a new note moved as its copy was written'],
  // Not traced: failing before the fixes of 38000197 above, passing with them.
  [7500231, 'a conflict copy of Notes/Meeting.md missing on a device'],
  // Failing between two fixes of this round, passing since the last merge (a generator shift):
  // its failure (on Linux a new trip.md met the companion's Trip.md as a copy, the copy and then
  // the note were deleted, and Trip.md was missing on dev1) was not traced, so it may be open.
  [42000003, 'Trip.md missing on a device'],
  // A rename sent before the delete of the note at its (case-folded) path; a rename event onto
  // the path of a note deleted here skipped as the engine's own (replayed in
  // sync-sim-replays.test.ts).
  [62106274, 'a false conflict copy of Projects/plan.md: moved onto a deleted note’s path'],
  // The run's 120 s deadline: the engine fetched two blobs at once (a copy of a note deleted
  // here checked against the version sent); the answer to one left the device waiting on the
  // other, and the simulation waited for a request never announced. Not a spin (2 s of CPU).
  [62106690, 'a run that did not finish: two requests of one device in flight at once'],
  // An answer applied whole (the copy placed, the path given the companion's version and
  // recorded), the app killed before the commit was marked done, the note deleted: answered
  // again, the companion's version was written back.
  [9300459, 'a note back: Projects/Plan.md, deleted by dev1'],
  // A delete's answer settled after another file's answer took its record's path: the path's
  // record (the companion's note) taken for it and moved to the deleted file's path.
  [9800132, 'Projects/Plan.md missing on dev2'],
  // Passing since that fix; its own run was not traced (the same symptom, maybe the same cause).
  [62107073, 'projects/plan.md missing on dev2'],
  // From the 10,000 runs from 9500000 of the last round. A remote move applied onto a path
  // whose record (a note renamed there and deleted, app closed) wrote over it, so that delete
  // never went up; and a rename onto a case variant of a note deleted here sent first.
  [9505152, 'a file missing on a device: a remote move over a gone record'],
  [9501418, 'a false conflict copy of Inbox.md: moved onto a deleted inbox.md’s path'],
  // The only lost line in 34,000 fresh runs (traced): dev1, closed, moved Ideas.md to inbox.md
  // and Notes/Meeting.md onto Ideas.md. On start Ideas.md read as an edit of the old Ideas
  // (every line replaced) and inbox.md as a new file; the companion joined the new file with an
  // old version of Ideas though its file had lost L4 since, so L4 was in no file. A new file is
  // now joined only when the merge keeps each of its lines (commit.test.ts).
  [566059936, 'a lost line: L4, by the server'],
  // From the 100,000-run long run from 800000000 (on the engine before these two fixes), the
  // two other lost lines of L2 (by the server): passing with the fix of 566059936, not traced.
  [800059657, 'a lost line: L2, by the server'],
  [800064684, 'a lost line: L2, by the server'],
  // The long run's sixth run with a lost line: passing on this stop's final engine, not traced.
  [800047635, 'a lost line: L4, by the server'],
  // Traced, one mechanism: a conflict answer applied again (its commit resent after a crash or
  // a failed download) took the bytes at the path (another note moved there, or a new note
  // made there with the app closed) for edits of the version sent, and wrote them over the
  // copy, its every line dropped by the copy's merge. Only bytes keeping every line of the
  // version sent move now (both replayed in sync-sim-replays.test.ts).
  [800007146, 'a lost line: L27, by dev2'],
  [800064617, 'a lost line: L6, by dev1'],
  // Traced: a conflict copy recorded gone (its note moved with the app closed, the answer
  // resent) was joined by that note, moved here where the copy was moved elsewhere; the note
  // was deleted as a stale twin and the gone record's delete dropped the copy.
  [800013729, 'two lost lines (L30, L40 by dev3): a copy recorded gone, joined here'],
  // Passing since that fix; its run was not traced.
  [566060024, 'a false conflict copy of Projects/Plan.md'],
  // Traced: dev0 moved Notes/Meeting.md to Trip.md and deleted it before the move went up, and
  // made a new Notes/Meeting.md. The delete alone lost to dev1's edits and kept the note at
  // Notes/Meeting.md, where the new note's commit met it. When a new note is at the path a
  // deleted note was moved off, the move goes first now (replayed in sync-sim-replays.test.ts).
  [1073465334, 'a false conflict copy of Notes/Meeting.md: moved, deleted, a new note there'],
  // Passing since that fix, not traced one by one.
  [9505498, 'Trip.md missing on dev3, back on the companion (deleted by dev3)'],
  [566059972, 'a false conflict copy of a conflict copy of projects/plan.md'],
  // Traced: between the scan's listing and its reads, a case-insensitive device moved
  // projects/plan.md away and Trip.md onto Projects/Plan.md; the read of projects/plan.md
  // found Trip's bytes, which went up as the plan's edit, and Trip's lines were later merged
  // away. Reads are of exactly the listed path now (both replayed in sync-sim-replays.test.ts,
  // with the move onto a path another move leaves, which made a copy once the read was right).
  [1200001196, 'two lost lines (L12, L13 by dev2): a read found a file moved onto a case variant'],
  // Passing since a move onto a path another move leaves goes after it; not traced.
  [1073464570, 'a false conflict copy of Shopping.md'],
  // Traced: a conflict copy edited here, then moved and deleted while the edit was on its way;
  // merged there with the copy's own front matter, the answer wrote it back. A merge with no
  // line this device did not send lets the delete stand (replayed in sync-sim-replays.test.ts).
  [1300001342, 'a conflict copy of Trip.md back, deleted by dev1 while its edit went up'],
  // Passing since that fix; not traced.
  [566061097, 'a false conflict copy of Notes/Meeting.md'],
  // The first divergence in many stops: dev1's daily note, its template only, was merged
  // there into another device's while dev1 typed; recorded at the answer's seq with the
  // template as its base, then deleted, the app killed and the note made again from the
  // template, it looked unchanged for good. The record now stays before that entry and the
  // pull goes back to it (replayed in sync-sim-replays.test.ts).
  [137361585, 'dev1 keeps its daily note from the template, not the companion’s'],
  // A note deleted here, edited there, written back at the path a file moved onto its own
  // path came from, then sent up as a move nobody made (replayed in sync-sim-replays.test.ts).
  [211000230, 'a false conflict copy of Daily/2026-11-22.md'],
  // A move answered for a path taken here: the record took the companion's path anyway, and
  // the note's place here went up as a rename back (replayed in sync-sim-replays.test.ts).
  [211000777, 'a false conflict copy of Notes/Meeting.md'],
  [211001085, 'a false conflict copy of projects/Plan.md (passes since the same fix)'],
  // A batch lost on its way while offline, resent as it was after the note had moved: made
  // again at its old path, beside its move. Now only its answer is asked for (`replay_only`);
  // never applied, it is withdrawn and built again (replayed in sync-sim-replays.test.ts).
  [211001907, 'a false conflict copy of Trip.md'],
  // The companion's version written over a file where a move was blocked, the app killed
  // before its record: same size and mtime as the record said, never hashed again. The
  // fingerprint is cleared before each overwrite (not replayed alone: a plain crash there
  // recovers on its own, this run needs the blocked move around it).
  [213001522, 'Ideas.md only on dev2, projects/plan.md missing there'],
  // A file moved as its commit was answered, moved back to the path it was sent under (both
  // replayed in sync-sim-replays.test.ts).
  [459924914, 'Ideas.md missing on dev0: a deleted note’s record written over by the move back'],
  [459925569, 'a false conflict copy of Trip.md: the move forgotten in a crash, the note twice'],
  // From 2,000 fresh runs from 871000000 (lost 0; 5 failed): a note's move blocked by a new
  // file of the same batch, which the batch then deleted as its twin (replayed in
  // sync-sim-replays.test.ts; 871001804 traced to the same retried move).
  [871000382, 'Log.md with other bytes on dev4, Ideas.md missing there'],
  [871001804, 'Inbox.md with other bytes on dev2, Ideas.md missing there'],
  // A new file of the unanswered commit moved (and edited) with the app closed: found by the
  // lines it keeps of the version sent, its answer settles there (replayed in
  // sync-sim-replays.test.ts).
  [871001365, 'a false conflict copy of Projects/Plan.md: the same note twice'],
  // A pulled move of a file deleted and made anew here with the app closed: the new file is
  // a new note, the moved one's record goes without a file (replayed in
  // sync-sim-replays.test.ts). 9300233 failed in .ci/run's 500 runs after the change above.
  [459925576, 'a false conflict copy of a conflict copy of Log.md: deleted, made anew, closed'],
  [9300233, 'a false conflict copy of Shopping.md: inbox.md deleted, Inbox.md made, moved'],
  // A remote edit skipped while the note was changed here, the change then gone (replayed in
  // sync-sim-replays.test.ts).
  [983002167, 'the daily note kept at its template on dev1'],
  // Passing since that change, not traced (from the same 3,000 runs from 983000000).
  [983001156, 'inbox.conflict back, deleted by dev1'],
  [983002819, 'a false conflict copy of a conflict copy of Trip.md'],
  // A companion delete pulled for a daily note gone here, the note made again from its
  // template before the scan (replayed in sync-sim-replays.test.ts).
  [1040000843, 'Daily/2026-11-22.md on dev2 only'],
  // A conflict answer's move blocked by a file here, the pull gone back to the copy's entry
  // (replayed in sync-sim-replays.test.ts); 983002640 takes the same branch on its failing
  // file.
  [1040011590, 'Projects/Plan.md with other bytes on dev1, Inbox.md missing there'],
  [983002640, 'Trip.md with other bytes on dev2, Projects/plan.md missing there'],
  // Open until the same change (the pass reads the unanswered commit once, before the moves
  // are looked for, which moves its steps); none takes the new branch, so none counts as
  // fixed; not traced.
  [1600000757, 'Trip.md back, deleted by dev2'],
  [214001201, 'Notes/Meeting.md back, deleted by dev2'],
  [741185999, 'a false conflict copy of a conflict copy of Ideas.md'],
  // Open until this stop, passing since a file moved as its commit is answered keeps its move.
  // Traced on the engine before (a diverged file, there moved back by the answer, is the one
  // taking the new branch now):
  [215004877, 'a file only on one side (diverged)'],
  [215008835, 'a file only on one side (diverged)'],
  [215015177, 'a file only on one side (diverged)'],
  [215015285, 'a file only on one side (diverged)'],
  // Not traced: each run takes that fix's branch or saves its moves with the commit, which
  // changes its requests after it; kept as plain tests, not counted as fixed.
  [214000309, 'a conflict copy of Projects/Plan.md back, deleted by dev0'],
  [214001619, 'a false conflict copy of Ideas.md'],
  [215000594, 'a file only on one side (diverged)'],
  [215001172, 'a file only on one side (diverged)'],
  [215001400, 'a file only on one side (diverged)'],
  [215002320, 'a file only on one side (diverged)'],
  [741185160, 'a false conflict copy of a conflict copy of Trip.md'],
  [741185188, 'a false conflict copy of a conflict copy of Projects/plan.md'],
  [741185468, 'a conflict copy of projects/plan.md back, deleted by dev0'],
  // A note deleted and made anew at its path with no event seen (the app closed, or killed
  // before the delete went up): its text went up as an edit replacing every line, merged with
  // or met the edits of a note it had nothing to do with (a false copy, often of a copy). Now
  // a changed text that keeps no line of its base (3 or more lines) is a new note and the old
  // one's delete (docs/sync.md, a client in outline, 2). Traced: 1300000184.
  [1300000184, 'a false conflict copy of a conflict copy of inbox.md: deleted, made anew'],
  // Failing on the engine before it, passing with it (from 3,000 fresh runs from 1300000000:
  // 11 failed before, 3 after, none of them false conflicts), not traced one by one:
  [1300000031, 'Notes/meeting.md back, deleted by dev2'],
  [1300000814, 'a false conflict copy of projects/Plan.md'],
  [1300000854, 'Log.md back, deleted by dev1'],
  [1300001045, 'a false conflict copy of a conflict copy of Notes/meeting.md'],
  [1300001098, 'a failed run of the first sweep from 1300000000'],
  [1300001553, 'a false conflict copy of a conflict copy of inbox.md'],
  [1300002097, 'Log.md back, deleted by dev0'],
  [1300002573, 'a failed run of the first sweep from 1300000000'],
  // Open seeds of earlier sweeps (in OPEN_SEEDS until this fix), passing with it:
  [214001022, 'a false conflict copy of a conflict copy of projects/Plan.md'],
  [214001263, 'a false conflict copy of Notes/Meeting.md'],
  [741184748, 'a conflict copy of Shopping.md back, deleted by dev2'],
  [871000344, 'a false conflict copy of projects/plan.md: deleted, made anew, moved'],
  [871001748, 'a false conflict copy of a conflict copy of log.md'],
  [983000174, 'a false conflict copy of Notes/Meeting.md'],
  [983002493, 'Log.md back, deleted by dev1'],
  [983002641, 'Projects/Plan.md back, deleted by dev1'],
  [559939160, 'a false conflict copy of Shopping.md'],
  [559938594, 'a false conflict copy of Inbox.md'],
  // Failing on drafts of that fix, never landed: a made-anew delete of a held batch sent as an
  // edit beside the hold (1300000418); a conflict copy taken for made anew, its lines dropped
  // for the edits made to it elsewhere (1300000208, 1300001504).
  [1300000418, 'a false conflict copy of Log.md: a delete held, the file sent as an edit'],
  [1300000208, 'a false conflict copy of a conflict copy of Ideas.md: a copy deleted'],
  [1300001504, 'a false conflict copy of a conflict copy of inbox.md: a copy deleted'],
  // A new note's commit went up; before the answer the user deleted it and moved another note
  // onto its path. The answer found the path's record to be the mover's and kept nothing of
  // the new note, so its delete was never sent and the pull brought it back.
  [1500000883, 'inbox.md back: deleted, another note moved onto its path, as its commit went up'],
  // dev0's edit of its conflict copy was merged with the copy's two keys; the app went offline
  // before fetching that version and the user deleted the copy. Pulled later, the merge looked
  // like an edit made elsewhere, which wins over a delete, though every line was dev0's own.
  // (Replayed by this seed only: a plain test did not reach the same record state.)
  [1600001850, 'a conflict copy of Inbox.md back: its merged edit unfetched, then deleted'],
  // Counts the check no longer makes: the deleter deleted one of two files with the note's
  // header (the note and its conflict copy, both on its disk) and left the other where it was;
  // that one at the end is not the deleted one back (traced for 1800000741: dev3 downloaded its
  // copy, crashed before settling the note, and with the app closed deleted the note only).
  [1300000137, 'Notes/Meeting.md deleted, its conflict copy kept beside it: not a note back'],
  [1300001528, 'log.md deleted, its conflict copy kept beside it: not a note back'],
  [1500002856, 'Trip.md deleted, its conflict copy kept beside it: not a note back'],
  [940826150, 'a conflict copy deleted, its note kept (then moved onto Trip.md, copied there)'],
  [1800000741, 'projects/plan.md deleted after a crash, its conflict copy kept beside it'],
  [1800001269, 'Projects/Plan.md deleted, its conflict copy kept (later moved to Trip.md)'],
  [1800002048, 'Trip.md deleted, its conflict copy kept beside it: not a note back'],
  // Another: a daily note moved to Projects/Plan.md and deleted there, brought back by the
  // server's edit, met a new projects/plan.md (a real conflict; the check skipped daily notes).
  [1800000996, 'a moved daily note back by an edit, a new note at its path: a real conflict'],
  // dev0 deleted Projects/plan.md; dev1's edit of an older version brought it back as dev1 had
  // it, without the lines added since; dev3's edit of the deleted version then met that older
  // text as a conflict. A deleted file an edit revives is now its last version with the edit
  // merged in (companion/sync/commit.ts, \`revived\`).
  [1800002284, 'a copy of a copy: a note revived from an older version, edited from the last'],
  // A note moved and edited with the app closed, found by neither its bytes nor all its lines:
  // a delete (lost to edits made elsewhere) and a new note, the note twice, met as a copy. Found
  // now as the one unrecorded file keeping half its lines (each run checked to take that path).
  [940826117, 'a false conflict copy of log.md: a daily note moved and edited while closed'],
  [940826121, 'a false conflict copy of projects/plan.md: moved to Ideas.md, edited, closed'],
  [1600001273, 'a copy of a copy of Projects/Plan.md: Ideas.md moved there and edited, closed'],
  // In .ci/run's 500 runs, failing since notes made anew were told apart (it was --known-failing
  // there): closed, dev1 edited Shopping.md, moved it to Projects/Plan.md and made a new
  // Shopping.md. Found now as the moved note by half its lines (checked to take that path).
  [9300170, 'a false conflict copy of Shopping.md: moved and edited unseen, made anew'],
  // A conflict answer for a version deleted here since, its path taken by another note (a case
  // variant made anew): the copy was written here as if the file were the one sent. The copy is
  // recorded gone now (each run checked to take that path).
  [1900001182, 'a conflict copy back: a new note deleted, inbox.md made, as its commit went up'],
  [1500001344, 'Shopping.md back: the same, a new note made at a case variant of its path'],
  // The old daily note, deleted and made again from the template on dev1, came back by dev0's
  // edit onto the new one's path: two new files at one path, joined now on the edit's base.
  [1900001029, 'a false conflict copy of Daily/2026-11-22.md: a daily note made again, revived'],
  // From the long run on 9ce4a69 (100,000 runs from 2100000000): two lines lost. A conflict
  // answer settled again after a crash deleted the companion's note, renamed in case with the
  // app closed on a case-insensitive device, as its own twin (checked to fail on 9ce4a69).
  [2100060306, 'two lost lines (L2, L10 by the server): a note deleted here as its own twin'],
  // From 2,000 fresh runs from 2300000000 on 3ca2f6b (lost 0, 1 failed: 4 devices diverged; it
  // fails on 9ce4a69 too): the companion held Projects/Plan.md and projects/plan.md, its look
  // for a case variant on disk going into an empty Projects/ only.
  [2300000212, 'diverged: Projects/Plan.md committed beside projects/plan.md on the companion'],
  // From the same long run, a line lost and the device never in step (traced for 2100095441):
  // a new note of an unanswered commit, moved and added to with the app closed, was found on
  // start with its record given the file's size and mtime beside the sent version's hash; the
  // app died again, and the file looked unchanged for good. 2100010754 fails on 9ce4a69 and
  // without this fix, and passes with it (not traced one by one).
  [2100095441, 'a lost line (L56 by dev0): a moved new note taken for unchanged after a crash'],
  [2100010754, 'a lost line (L41 by dev4), trip.md never in step on dev4'],
  // From 2,000 fresh runs from 28035080 (the review's seed; 1 failed, a false copy): opened
  // offline, the base of a note moved and edited while closed was out of reach, and the look for
  // unseen moves was not made again once online.
  [28036224, 'a false conflict copy of Trip.md: a moved, edited note not looked for again'],
  // The same path taken (a base out of reach as it opened), passing with that fix.
  [2400001655, 'a false conflict copy of log.md: a moved, edited note not looked for again'],
];

/**
 * Failing on this engine in fresh sweeps, not traced yet (each comment names its sweep). None
 * is in .ci/run's 500 runs, which all pass.
 */
const OPEN_SEEDS: ReadonlyArray<readonly [seed: number, what: string, blobsPerBatch?: number]> = [
  // Earlier open seeds whose runs changed or passed are in the git history of this file, with
  // their mechanisms where traced (and in docs/sync.md).
  // From 2,000 fresh runs from 137361473 (lost 0), not traced.
  [137362154, 'Ideas.md back, deleted by dev1'],
  // From 2,000 fresh runs from 459924114 (lost 0; 4 failed; three fixed, in FIXED_SEEDS).
  // Traced, by design (docs/sync.md, a client in outline, 5): dev4 died between writing a
  // download and recording it, and the note was deleted with the app closed; on start nothing
  // tells that from a write that never happened, and the note is downloaded again.
  [459925972, 'Ideas.md back, deleted by dev4 after a crash mid-download (by design)'],
  // From 3,000 fresh runs from 983000000 (lost 0; 9 failed; three pass, in FIXED_SEEDS), not
  // traced yet.
  [983002906, 'a false conflict copy of projects/Plan.md'],
  [983002961, 'Inbox.conflict back, deleted by dev0'],
  // From 15,000 fresh runs from 1040000000 on the engine of fe351c3 (lost 0; 35 failed; two
  // fixed since, in FIXED_SEEDS): the other divergence, not traced. The other 32 (notes back
  // and false copies) are named by that run's log only.
  [1040004472, 'a file differs on a device, a note back (diverged)'],
  // From 2,000 fresh runs from 559938159 on 3ea62f2 (lost 0, diverged 0), not traced.
  [559939148, 'a false conflict copy of projects/Plan.md'],
  // From 3,000 fresh runs from 1300000000 on the engine that tells notes made anew (lost 0,
  // diverged 0, 3 failed, all notes back). 1300002528 is traced, by design like 459925972: dev3
  // died between writing a download and recording it, and the note was deleted meanwhile.
  [1300002528, 'Projects/Plan.md back, deleted by dev3 after a crash mid-download (by design)'],
  // From 3,000 fresh runs from 1400000000 on the merge fix's engine (lost 0, diverged 0,
  // 3 failed: one fixed by that merge rule, one a false count the check no longer makes).
  // Traced: dev1 died after its first commit; closed, it moved Log.md away and edited it (no
  // line-for-line match: not found as a move) and made a new Log.md. The new one was told
  // apart as made anew, so the old note's delete went first; it lost to edits made elsewhere
  // (the note kept at Log.md), and the new Log.md met it there as a copy.
  [1400001736, 'a false conflict copy of Log.md: moved and edited while closed, made anew'],
  // From 3,000 fresh runs from 1500000000 on the same engine (lost 0, diverged 0, 6 failed).
  // 1500001861 and 1500001930 are by design like 459925972 (a crash between writing a download
  // and recording it, the file then deleted); 1500000883 is fixed (in FIXED_SEEDS).
  [1500001861, 'Inbox.md back, deleted by dev0 after a crash mid-download (by design)'],
  [1500001930, 'Projects/Plan.md back, deleted by dev0 after a crash mid-download (by design)'],
  [1500002866, 'a false conflict copy of Shopping.md (not traced)'],
  // From 2,400 fresh runs from 1600000000 on dca5aeb (lost 0, diverged 0, 2 failed; 1600001850
  // fixed since, in FIXED_SEEDS), not traced.
  // From 2,000 fresh runs from 940825063 on the final engine (lost 0, diverged 0, 3 failed),
  // not traced.
  // From 3,000 fresh runs from 1800000000 on 9ce4a69 (lost 0, diverged 0, 6 failed; three are
  // counts the check no longer makes, in FIXED_SEEDS). 1800001953 is traced, by design like
  // 459925972: dev2 died between writing a download and recording it, then deleted the note
  // and made a new one at its path with the app closed.
  [1800001953, 'Notes/Meeting.md back, deleted by dev2 after a crash mid-download (by design)'],
  // From 2,000 fresh runs from 2200000000 on 9490548 (lost 0, diverged 0, 2 failed).
  // 2200000769 is by design like 459925972. 2200000823 traced: a new Shopping.md's commit went
  // up; the user deleted it and moved Notes/Meeting.md onto its path; the answer was settled,
  // then the app died before the next commit, and the delete kept in memory for it
  // (goneNewFiles, seed 1500000883) was lost: the note came back and met the mover as a copy.
  [2200000769, 'Shopping.md back, deleted by dev0 after a crash mid-download (by design)'],
  [2200000823, 'Shopping.md back and a copy: a gone new file’s delete lost in a crash'],
  // From 3,000 fresh runs from 2400000000 on 8b6f5ad, the final engine of this stop (lost 0,
  // diverged 0, resurrected 0, 2 false conflict copies), not traced.
  [2400001481, 'a false conflict copy of projects/plan.md'],
  // The long run on 9ce4a69 (100,000 runs from 2100000000): of its 170 failed runs, 56 still
  // fail on this stop's final engine. Its divergences left (a file missing on a device), not
  // traced; the notes back and false copies are named by that run's log only.
  [2100021633, 'diverged: Projects/Plan.md missing on dev0'],
  [2100059900, 'diverged: Notes/Meeting.md missing on dev0'],
  [2100076440, 'diverged: Inbox.md missing on dev0'],
];

describe('sync-sim seeds that failed (issue #23)', () => {
  // One companion app for every run, as `npm run sync-sim` does (building it takes longer than
  // a run).
  let app: SharedCompanionApp;
  beforeAll(async () => {
    app = await SharedCompanionApp.create();
  });
  afterAll(async () => {
    await app.close();
  });
  for (const [seed, what] of FIXED_SEEDS) {
    it(`seed ${seed}: ${what}`, { timeout: 120_000 }, async () => {
      const result = await runOne(seed, { app });
      expect(result.error).toBeUndefined();
      expect(failed(result)).toBe(false);
    });
  }
  for (const [seed, what, blobsPerBatch] of OPEN_SEEDS) {
    // Past the run deadline (120 s), so a run that never ends fails with its error, not a timeout.
    it.fails(`seed ${seed} (still failing): ${what}`, { timeout: 180_000 }, async () => {
      const result = await runOne(seed, {
        app,
        ...(blobsPerBatch === undefined ? {} : { blobsPerBatch }),
      });
      expect(result.error).toBeUndefined();
      expect(failed(result)).toBe(false);
    });
  }
});
