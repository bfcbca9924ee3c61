#!/usr/bin/env node
import { importVigilModule } from '../launch/compiled.js';

const { main } = await importVigilModule('cli');
await main(process.argv.slice(2));
