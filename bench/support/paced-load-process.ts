// The steady load of bench/rest.ts in a process of its own (pacedLoadApart): prints its LoadResult as JSON.
import { type LoadTarget, pacedLoad } from './load.js';

interface PacedLoadArguments {
  target: LoadTarget;
  perSecond: number;
  connections: number;
  durationSeconds: number;
  warmUpSeconds: number;
}

const { target, perSecond, connections, durationSeconds, warmUpSeconds } = JSON.parse(process.argv[2] ?? '') as PacedLoadArguments;
process.stdout.write(JSON.stringify(await pacedLoad(target, perSecond, connections, durationSeconds, warmUpSeconds)));
