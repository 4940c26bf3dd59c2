// End-to-end test of `gpuplan web` in a real headless Chromium (Debian's chromium,
// driven by playwright-core). Run by CTest (tests/e2e/CMakeLists.txt) or by hand:
//   GPUPLAN_BINARY=build/gpuplan node tests/e2e/web.e2e.mjs
// Exit 0: passed; 1: failed; 77: skipped (no chromium or no node_modules), with the reason printed.
import { spawn, spawnSync, execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import assert from 'node:assert/strict';

const here = dirname(fileURLToPath(import.meta.url));
const binary = process.env.GPUPLAN_BINARY || join(here, '../../build/gpuplan');
const chromiumPath = process.env.CHROMIUM || '/usr/bin/chromium';
const shots = process.env.GPUPLAN_SCREENSHOTS || join(here, '../../build/screenshots');

function skip(why) {
  console.log(`SKIP: ${why}`);
  process.exit(77);
}
if (!existsSync(binary)) skip(`no gpuplan binary at ${binary}`);
if (!existsSync(chromiumPath)) skip(`no Chromium at ${chromiumPath} (apt-get install chromium; scripts/test.sh does)`);
let chromium;
try {
  ({ chromium } = await import('playwright-core'));
} catch (e) {
  skip(`playwright-core is not installed (cd tests/e2e && npm ci; scripts/test.sh does): ${e.message}`);
}

// The same inputs the page is given below.
const INPUTS = { model: 'llama-3.1-70b', tokens: '15T', gpu: 'h100', gpus: '1024', mfu: '0.4' };
function cli(format, extra = []) {
  return execFileSync(binary, ['train', '--model', INPUTS.model, '--tokens', INPUTS.tokens, '--gpu', INPUTS.gpu,
    '--gpus', INPUTS.gpus, '--mfu', INPUTS.mfu, '--format', format, ...extra], { encoding: 'utf8' });
}

function startServer() {
  return new Promise((resolve, reject) => {
    const proc = spawn(binary, ['web', '--port', '0'], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    proc.stdout.on('data', (d) => {
      out += d;
      const m = out.match(/http:\/\/127\.0\.0\.1:(\d+)\//);
      if (m) resolve({ proc, base: `http://127.0.0.1:${m[1]}` });
    });
    proc.on('exit', (code) => reject(new Error(`gpuplan web exited with ${code}: ${out}`)));
    setTimeout(() => reject(new Error('gpuplan web did not print its address within 10 s')), 10000);
  });
}

const step = (s) => console.log(`- ${s}`);
// Words of the page that are English prose on the Chinese page: runs of three or
// more Latin letters, less the names, units and abbreviations that Chinese
// technical text writes in Latin letters too.
const LATIN_OK = new Set(['GPU', 'GPUs', 'GiB', 'MiB', 'TiB', 'MFU', 'HFU', 'ZeRO', 'CUDA', 'NCCL', 'LoRA', 'QLoRA', 'MoE', 'token', 'tokens',
  'sxm', 'SXM', 'NVIDIA', 'DeepSeek', 'Llama', 'TPOT', 'TTFT', 'FLOP', 'TFLOP', 'PFLOP', 'EFLOP', 'vLLM', 'LMDeploy', 'gpuplan', 'pcie', 'nvl',
  'logits', 'Logits', 'ascend', 'rtx', 'tpu', 'Young', 'Daly']);  // Young and Daly: the checkpoint-interval formula's authors
async function englishWords(page, selector) {
  const texts = await page.$$eval(selector, (els) => els.filter((e) => e.offsetParent !== null || e.closest('svg')).map((e) => e.textContent));
  return [...new Set(texts.flatMap((t) => t.match(/[A-Za-z]{3,}/g) || []))].filter((w) => !LATIN_OK.has(w));
}
let server, context, profile;
try {
  mkdirSync(shots, { recursive: true });
  server = await startServer();
  step(`server at ${server.base}`);
  profile = mkdtempSync(join(tmpdir(), 'gpuplan-e2e-'));
  context = await chromium.launchPersistentContext(profile, {
    executablePath: chromiumPath,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync'],
    viewport: { width: 1366, height: 900 },
    locale: 'en-US',
    bypassCSP: true,  // playwright's waitForFunction evaluates strings; the page's own CSP forbids eval
  });
  const errors = [];
  const page = await context.newPage();
  page.on('pageerror', (e) => errors.push(e.message));
  // A 400 while a field is half typed is the page working (it shows the API's sentence); other console errors are not.
  page.on('console', (m) => {
    if (m.type() === 'error' && !/status of 400/.test(m.text())) errors.push(`${m.text()} (${m.location().url})`);
  });

  // 1. Load the page (clean URL), choose Llama-3.1-70B on 1,024 H100s.
  await page.goto(server.base + '/');
  await page.waitForFunction(() => document.body.dataset.ready === '1');
  step('page loaded');
  // Both languages: every label of the page, and every text the script shows, in English and in Chinese.
  const untranslated = await page.evaluate(() => {
    const keys = new Set([...document.querySelectorAll('[data-i18n]')].map((e) => e.dataset.i18n));
    for (const k of Object.keys(I18N.en).concat(Object.keys(I18N.zh))) keys.add(k);
    return [...keys].filter((k) => !I18N.en[k] || !I18N.zh[k]);
  });
  assert.deepEqual(untranslated, [], 'labels without both languages');
  const trainDone = (pred) => page.waitForResponse((r) => {
    if (!r.url().endsWith('/api/train/view')) return false;
    try { return pred(JSON.parse(r.request().postData())); } catch { return false; }
  });
  await page.selectOption('#model', 'llama-3.1-70b');
  await page.selectOption('#gpu', 'h100-sxm5-80gb');
  await page.fill('#tokens', INPUTS.tokens);
  await page.fill('#mfu', INPUTS.mfu);
  const answered = trainDone((b) => b.model === 'llama-3.1-70b' && b.gpu === 'h100-sxm5-80gb' && b.gpus === '1024' && b.mfu === '0.4' && b.tokens === '15T');
  await page.fill('#gpus', '');
  await page.type('#gpus', INPUTS.gpus);
  await answered;
  await page.waitForFunction(() => !document.body.classList.contains('busy') && document.querySelector('#out-time').dataset.value);
  step('train estimate shown');

  // 2. The time and cost shown equal `gpuplan train --format json` for the same inputs.
  const json = JSON.parse(cli('json'));
  const shown = await page.evaluate(() => {
    const g = (id) => { const e = document.querySelector(id); return { text: e.textContent, value: e.dataset.value, key: e.dataset.key }; };
    return { time: g('#out-time'), cost: g('#out-cost'), gpus: g('#out-gpus'), hours: g('#out-gpu-hours') };
  });
  console.log('  shown:', JSON.stringify(shown));
  assert.equal(shown.time.key, 'time.wall_clock_s');
  assert.equal(Number(shown.time.value), json.time.wall_clock_s, 'wall-clock time differs from the CLI');
  assert.equal(Number(shown.gpus.value), json.time.gpus);
  assert.equal(Number(shown.hours.value), json.gpu_hours.total_gpu_hours);
  const [sec, costKey] = shown.cost.key.split('.');
  assert.equal(sec, 'cost');
  assert.equal(Number(shown.cost.value), json.cost[costKey], `${costKey} differs from the CLI`);
  // The text shown is the CLI table's formatting of the same numbers.
  const table = cli('table');
  for (const k of ['time', 'cost', 'hours']) assert.ok(table.includes(shown[k].text), `CLI table lacks "${shown[k].text}"`);
  step(`time ${shown.time.text} and cost ${shown.cost.text} equal the CLI (${json.time.wall_clock_s} s, ${costKey} ${json.cost[costKey]})`);

  await page.waitForFunction(() => document.querySelectorAll('#chart-cost circle').length >= 8, null, { timeout: 60000 });
  await page.screenshot({ path: join(shots, 'train-en.png'), fullPage: true });

  // 3. Chinese: a label changes and the choice is remembered. The language brings the China market, so the
  // curves are computed again: they say how far they are while they are (issue 30: they filled 1.5–2 s after
  // the page looked done, with no sign): every progress text the card is given, then "done" with it hidden.
  await page.evaluate(() => {
    window.sweepSeen = [];
    // Each text the status was given (one record per change, however they batch).
    new MutationObserver((records) => { for (const r of records) for (const n of r.addedNodes) window.sweepSeen.push(n.textContent); })
      .observe(document.querySelector('#sweep-status'), { childList: true, characterData: true, subtree: true });
  });
  await page.click('#lang-toggle');
  assert.equal(await page.textContent('[data-i18n="k_time"]'), '训练时长');
  assert.equal(await page.textContent('[data-i18n="tab_train"]'), '训练');
  assert.equal(await page.evaluate(() => localStorage.getItem('gpuplan.lang')), 'zh');
  step('Chinese labels shown');
  // Unless a market is chosen, Chinese means the China market: CNY listings, the cost chart in CNY.
  await page.waitForFunction(() => !document.body.classList.contains('busy') && document.querySelector('#out-cost').dataset.currency === 'cny' &&
    document.querySelector('#chart-cost').dataset.currency === 'cny' && document.querySelectorAll('#chart-cost circle').length >= 8, null, { timeout: 60000 });
  assert.match(await page.textContent('#chart-cost figcaption'), /百万元/);
  const cnJson = JSON.parse(cli('json', ['--market', 'cn']));
  assert.equal(Number(await page.getAttribute('#out-cost', 'data-value')), cnJson.cost.total, 'China-market cost differs from the CLI');
  step(`zh follows the China market: cost ${await page.textContent('#out-cost')} equals train --market cn`);
  // Playwright sees responses before the page handles them: wait for this sweep's own start, then its end.
  await page.waitForFunction(() => window.sweepSeen.some((x) => /^正在计算曲线：已完成 0\/\d+ 个点$/.test(x)) &&
    document.querySelector('.chart-card[data-sweep]').dataset.sweep === 'done', null, { timeout: 60000 });
  const seen = await page.evaluate(() => window.sweepSeen);
  const total = Number(await page.getAttribute('#sweep-status', 'data-total'));
  assert.ok(total >= 8, `no point count on the sweep status (${total})`);
  assert.ok(seen.some((x) => x.includes(`已完成 ${total - 1}/${total} 个点`)), `the sweep never counted its points: ${JSON.stringify(seen)}`);
  assert.equal(await page.isHidden('#sweep-status'), true, 'the progress line stays after the curves are drawn');
  assert.equal(await page.getAttribute('.chart-card[data-sweep]', 'aria-busy'), 'false');
  step(`the curves report progress (${seen.length} updates up to ${total} points), then hide it`);
  assert.deepEqual(await englishWords(page, '.tab-train .kpi, #chart-time figcaption, #chart-cost figcaption, .chart-card .legend span, .chart-card h2, #report td:first-child, #report th'), [],
    'English words on the Chinese training tab');
  await page.screenshot({ path: join(shots, 'train-zh.png'), fullPage: true });

  // 4. The shared URL brings the same state back in a new page.
  const shared = page.url();
  assert.ok(shared.includes('gpus=1024') && shared.includes('model=llama-3.1-70b'), `URL lacks the state: ${shared}`);
  const page2 = await context.newPage();
  page2.on('pageerror', (e) => errors.push(e.message));
  await page2.goto(shared);
  await page2.waitForFunction(() => document.body.dataset.ready === '1' && document.querySelector('#out-time').dataset.value);
  const fields = ['#model', '#gpu', '#gpus', '#tokens', '#mfu'];
  for (const f of fields) assert.equal(await page2.inputValue(f), await page.inputValue(f), `${f} not restored from the URL`);
  assert.equal(await page2.getAttribute('#out-time', 'data-value'), shown.time.value);
  assert.equal(await page2.getAttribute('#out-cost', 'data-value'), await page.getAttribute('#out-cost', 'data-value'));
  assert.equal(await page2.textContent('[data-i18n="k_time"]'), '训练时长', 'language not remembered');
  step(`shared URL restores the same state: ${shared.replace(server.base, '')}`);
  await page2.close();

  // 4b. The catalog's own config.json, loaded from a file instead of chosen in the menu: the same answer,
  // and the link carries it. Then back to the menu.
  const configPath = join(profile, 'pasted-config.json');  // removed with the profile
  writeFileSync(configPath, readFileSync(join(here, '../../data/models/llama-3.1-70b.json')));
  await page.evaluate(() => { document.querySelector('#config-box').open = true; });
  const pasted = trainDone((b) => b.config && b.config.num_hidden_layers === 80 && !('model' in b));
  await page.setInputFiles('#config-file', configPath);
  const pastedReport = (await (await pasted).json()).report;
  assert.equal(pastedReport.model.name, 'pasted config.json');
  assert.equal(pastedReport.time.wall_clock_s, Number(shown.time.value), 'a pasted config.json answers differently from its catalog model');
  await page.waitForFunction(() => document.querySelector('#report').textContent.includes('pasted config.json'));
  assert.ok(new URL(page.url()).searchParams.get('config').includes('"num_hidden_layers":80'), 'the link lacks the config');
  assert.equal(await page.isHidden('#config-not-in-link'), true);
  step('a config.json loaded from a file gives the catalog model\'s answer and is in the link');
  const back = trainDone((b) => b.model === 'llama-3.1-70b' && !('config' in b));
  await page.fill('#config', '');
  await back;
  await page.waitForFunction(() => !document.body.classList.contains('busy') && !new URL(location.href).searchParams.has('config'));

  // 4c. Market and currency chosen by hand; the cost chart follows the currency.
  await page.selectOption('#market', 'us');
  await page.waitForFunction(() => !document.body.classList.contains('busy') && document.querySelector('#out-cost').dataset.currency === 'usd' &&
    document.querySelector('#chart-cost').dataset.currency === 'usd' && document.querySelectorAll('#chart-cost circle').length >= 8, null, { timeout: 60000 });
  assert.match(await page.textContent('#chart-cost figcaption'), /百万美元/);
  await page.selectOption('#currency', 'cny');
  await page.waitForFunction(() => !document.body.classList.contains('busy') && document.querySelector('#out-cost').dataset.currency === 'cny' &&
    document.querySelector('#chart-cost').dataset.currency === 'cny' && document.querySelectorAll('#chart-cost circle').length >= 8, null, { timeout: 60000 });
  const usInCny = JSON.parse(cli('json', ['--market', 'us', '--currency', 'cny']));
  assert.equal(Number(await page.getAttribute('#out-cost', 'data-value')), usInCny.cost.total, 'US market in CNY differs from the CLI');
  step('market us / currency cny chosen: the KPI and the cost chart follow (equal to train --market us --currency cny)');
  await page.selectOption('#market', '');
  await page.selectOption('#currency', '');

  // 4d. Rent or own: the chart of this run's cost against fleet utilisation, equal to train --compare-own.
  const ownDone = trainDone((b) => b.compare_own === true && b.fleet_utilisation === 0.6 && b.market === 'cn');
  await page.check('#own');
  await page.fill('#fleet', '0.6');
  const ownReport = (await (await ownDone).json()).report;
  await page.waitForFunction(() => !document.body.classList.contains('busy') && document.querySelector('#chart-own polyline[data-series="owned"]') &&
    document.querySelector('#chart-own polyline[data-series="on_demand"]'), null, { timeout: 60000 });
  const ownCli = JSON.parse(cli('json', ['--market', 'cn', '--compare-own', '--fleet-utilisation', '0.6']));
  assert.equal(ownReport.rent_vs_own.own_run_cost, ownCli.rent_vs_own.own_run_cost, 'owned cost differs from the CLI');
  assert.equal(ownReport.own_vs_utilisation.length, ownCli.own_vs_utilisation.length);
  assert.equal(await page.getAttribute('#chart-own', 'data-currency'), 'cny');
  assert.match(await page.textContent('#chart-own figcaption'), /租用还是自建/);
  assert.ok(new URL(page.url()).searchParams.get('own') === '1', 'the link lacks the rent-or-own choice');
  // The axes fit the data (issue 30: a linear axis cut the owned cost off near ¥32M, so 5–25% utilisation looked flat):
  // every owned point lies inside the log axis, and the owned cost falls at every step of utilisation, so each point
  // sits lower than the one before.
  const ownPts = await page.$$eval('#chart-own circle', (cs) => cs.map((c) => ({ y: Number(c.getAttribute('cy')), v: Number(c.dataset.value) })));
  const axis = await page.$eval('#chart-own svg', (e) => ({ lo: Number(e.dataset.yLow), hi: Number(e.dataset.yHigh) }));
  assert.ok(ownPts.length >= 5, 'no owned points');
  for (const p of ownPts) assert.ok(p.v >= axis.lo && p.v <= axis.hi, `owned ${p.v} outside the axis ${axis.lo}–${axis.hi}`);
  for (let i = 1; i < ownPts.length; ++i) assert.ok(ownPts[i].y > ownPts[i - 1].y, `owned points ${i - 1} and ${i} drawn at the same height (clipped)`);
  const ownedMax = Math.max(...ownCli.own_vs_utilisation.map((p) => p.owned)) / 1e6;
  assert.ok(axis.hi >= ownedMax, `the axis stops at ${axis.hi} below the owned cost ${ownedMax}`);
  await page.locator('#chart-own').scrollIntoViewIfNeeded();
  await page.screenshot({ path: join(shots, 'rent-or-own-zh.png'), fullPage: true });
  await page.click('#lang-toggle');
  await page.waitForFunction(() => !document.body.classList.contains('busy') && document.querySelector('#chart-own figcaption') &&
    /Rent or own/.test(document.querySelector('#chart-own figcaption').textContent) && document.querySelector('#chart-own').dataset.currency === 'usd' &&
    document.querySelector('#chart-cost').dataset.currency === 'usd' && document.querySelectorAll('#chart-cost circle').length >= 8, null, { timeout: 60000 });
  await page.screenshot({ path: join(shots, 'rent-or-own-en.png'), fullPage: true });
  step(`rent-or-own chart drawn (owned ${ownCli.rent_vs_own.own_run_cost.toFixed(0)} CNY at 60%, as the CLI), screenshots rent-or-own-{zh,en}.png`);
  await page.click('#lang-toggle');
  await page.fill('#fleet', '');
  await page.uncheck('#own');
  await page.waitForFunction(() => !document.body.classList.contains('busy') && !new URL(location.href).searchParams.has('own'));

  // 4e. Issue 15: without --mfu the time is predicted: the headline cards carry its range, and a predicted MFU
  // above the best published for Hopper is stated above the cards, before the numbers that depend on it.
  const predicted = trainDone((b) => b.model === 'llama-3.1-70b' && !b.mfu);
  await page.fill('#mfu', '');
  const predictedReport = (await (await predicted).json()).report;
  await page.waitForFunction(() => !document.body.classList.contains('busy') && document.querySelector('#out-time-range').textContent);
  const rangeText = await page.textContent('#out-time-range');
  assert.ok(/80%/.test(rangeText), `no 80% range beside the time: "${rangeText}"`);
  assert.ok(predictedReport.time.wall_clock_s_high > predictedReport.time.wall_clock_s_low, 'the report has no time range');
  assert.ok(await page.textContent('#out-cost-range'), 'no range beside the cost');
  if (predictedReport.blocking_warnings) {
    assert.equal(await page.isVisible('#blocking'), true, 'a blocking warning is not shown');
    const box = await page.locator('#blocking').boundingBox();
    const cards = await page.locator('.tab-train .kpis').boundingBox();  // the training tab's headline cards
    assert.ok(box.y + box.height <= cards.y + 1, 'the blocking warning is not above the headline cards');
    assert.ok((await page.textContent('#blocking')).includes('48.0%'), 'the warning does not name the published best');
  }
  await page.screenshot({ path: join(shots, 'train-range.png'), fullPage: false });
  step(`predicted time shown with its range (${rangeText}) and ${predictedReport.blocking_warnings ? 'the capped MFU stated above the cards' : 'no blocking warning'}`);
  const again = trainDone((b) => b.mfu === '0.4');
  await page.fill('#mfu', INPUTS.mfu);
  await again;
  await page.waitForFunction(() => !document.body.classList.contains('busy') && !document.querySelector('#out-time-range').textContent);
  assert.equal(await page.isHidden('#blocking'), true, 'the blocking warning stays after --mfu is given back');

  // 4f. Issue 16: the training inputs the CLI has (sequence length, epochs, precision, fault budget) reach the same
  // /api/train, and on-demand, reserved and spot stand side by side in money and days (China market, CNY: zh).
  const moreDone = trainDone((b) => b.seq_len === '8192' && b.epochs === '2' && b.precision === 'fp8' && b.fault_budget === '0.1');
  await page.fill('#seq_len', '8192');
  await page.fill('#epochs', '2');
  await page.selectOption('#train_precision', 'fp8');
  await page.fill('#fault_budget', '0.1');
  const moreReport = (await (await moreDone).json()).report;
  await page.waitForFunction(() => !document.body.classList.contains('busy') && document.querySelector('#rent-table tr[data-way="spot"]'));
  const moreCli = JSON.parse(cli('json', ['--market', 'cn', '--seq-len', '8192', '--epochs', '2', '--precision', 'fp8', '--fault-budget', '0.1']));
  assert.equal(moreReport.time.wall_clock_s, moreCli.time.wall_clock_s, 'train with seq_len/epochs/precision/fault_budget differs from the CLI');
  assert.equal(Number(await page.getAttribute('#out-time', 'data-value')), moreCli.time.wall_clock_s);
  const rent = await page.$$eval('#rent-table tbody tr', (trs) => trs.map((tr) => ({
    way: tr.dataset.way, label: tr.cells[0].textContent,
    days: Number(tr.querySelector('[data-key="days"]').dataset.value), cost: Number(tr.querySelector('[data-key="cost"]').dataset.value) })));
  const cliRent = Object.fromEntries(moreCli.rent_options.map((r) => [r.way, r]));
  for (const w of ['on_demand', 'spot']) {
    const row = rent.find((r) => r.way === w);
    assert.ok(row, `no ${w} row in the rental table`);
    assert.equal(row.days, cliRent[w].days, `${w} days differ from the CLI`);
    assert.equal(row.cost, cliRent[w].cost, `${w} cost differs from the CLI`);
  }
  assert.equal(rent.find((r) => r.way === 'spot').label, '竞价');
  assert.match(await page.textContent('#rent-box h2'), /按需、预留、竞价/);
  // The new inputs and the rental table (the sweep below them may still be computing: it is drawn faded until then).
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.screenshot({ path: join(shots, 'train-inputs-zh.png'), fullPage: false });
  await page.locator('#rent-box').screenshot({ path: join(shots, 'train-rent-zh.png') });
  step(`seq_len 8192, 2 epochs, fp8, fault budget 0.1 as the CLI; spot ${cliRent.spot.days.toFixed(0)} days vs on-demand ${cliRent.on_demand.days.toFixed(0)} days, screenshots train-inputs-zh.png, train-rent-zh.png`);
  // An empty sequence length sends none: the command's own default (issue 25: 4,096, or the model's context where shorter).
  const restored = trainDone((b) => !('seq_len' in b) && b.epochs === '1' && b.precision === 'bf16' && !('fault_budget' in b));
  await page.fill('#seq_len', '');
  await page.fill('#epochs', '1');
  await page.selectOption('#train_precision', 'bf16');
  await page.fill('#fault_budget', '');
  await restored;

  // 4g. Issue 16: the fine-tuning tab over POST /api/finetune (the same FinetuneInputs as `gpuplan finetune`):
  // LoRA of Llama 3.1 70B on H100 in the China market; memory, GPU count, time and cost equal the CLI's.
  const ftDone = (pred) => page.waitForResponse((r) => {
    if (!r.url().endsWith('/api/finetune/view')) return false;
    try { return pred(JSON.parse(r.request().postData())); } catch { return false; }
  });
  const ftCli = (extra) => JSON.parse(execFileSync(binary, ['finetune', '--model', 'llama-3.1-70b', '--gpu', 'h100', '--method', 'lora', '--samples', '50k',
    '--epochs', '3', '--precision', 'bf16', ...extra, '--format', 'json'], { encoding: 'utf8' }));
  const ftReady = () => page.waitForFunction(() => !document.body.classList.contains('busy') && document.querySelector('#out-ft-time').dataset.value);
  const ftFirst = ftDone((b) => b.model === 'llama-3.1-70b' && b.method === 'lora' && b.samples === '50k' && b.market === 'cn');
  await page.click('.tabs button[data-tab="finetune"]');
  const ftReport = (await (await ftFirst).json()).report;
  await ftReady();
  const ftCn = ftCli(['--market', 'cn']);
  assert.deepEqual(ftReport, ftCn, 'the fine-tuning report differs from gpuplan finetune --market cn');
  assert.equal(ftCn.cost.currency, 'CNY');
  assert.equal(Number(await page.getAttribute('#out-ft-memory', 'data-value')), ftCn.memory.peak_bytes);
  assert.equal(Number(await page.getAttribute('#out-ft-gpus', 'data-value')), ftCn.inputs.gpus);
  assert.equal(Number(await page.getAttribute('#out-ft-time', 'data-value')), ftCn.time.wall_clock_s);
  assert.equal(Number(await page.getAttribute('#out-ft-cost', 'data-value')), ftCn.cost.total);
  assert.match(await page.textContent('#out-ft-cost'), /¥/);
  assert.equal(await page.getAttribute('#out-ft-fits', 'data-fits'), 'true');
  assert.equal(await page.textContent('[data-i18n="tab_finetune"]'), '微调');
  assert.equal(await page.textContent('[data-i18n="k_ft_memory"]'), '单卡显存');
  assert.ok((await page.$$('#ft-cheapest tbody tr')).length >= 3, 'no cheapest-GPU table');
  assert.ok(await page.isHidden('#gpus') && await page.isVisible('#ft_gpus'), 'the training GPU count shows in the fine-tuning tab');
  assert.deepEqual(await englishWords(page, '.tab-finetune .kpi, #ft-cheapest th, #ft-cheapest td, #ft-cheapest-title, #chart-ft-memory figcaption, #chart-ft-memory .legend span'),
    [], 'English words in the Chinese fine-tuning tab');
  await page.screenshot({ path: join(shots, 'finetune-zh.png'), fullPage: true });
  step(`fine-tuning tab: ${ftCn.inputs.gpus} × H100, ${(ftCn.memory.peak_bytes / 2 ** 30).toFixed(1)} GiB per GPU, ${ftCn.time.wall_clock_s.toFixed(0)} s as the CLI; screenshot finetune-zh.png`);
  // A deadline: the fewest GPUs that finish by then, as finetune --deadline.
  const ftDeadline = ftDone((b) => b.deadline === '12h');
  await page.fill('#ft_deadline', '12h');  // 4 GPUs take 18 h at finetune's own 2,048-token default
  const ftDl = (await (await ftDeadline).json()).report;
  assert.equal(ftDl.inputs.gpus, ftCli(['--market', 'cn', '--deadline', '12h']).inputs.gpus);
  assert.ok(ftDl.inputs.gpus > ftCn.inputs.gpus && ftDl.time.deadline_met === true);
  await page.waitForFunction((n) => document.querySelector('#out-ft-gpus').dataset.value === String(n), ftDl.inputs.gpus);
  // Issue 27: a job that does not fit on the GPUs asked for is priced nowhere; the changes that would fit instead.
  const ftNoFit = ftDone((b) => b.gpus === '1' && b.method === 'full' && !b.deadline);
  await page.fill('#ft_deadline', '');
  await page.selectOption('#ft_method', 'full');
  await page.fill('#ft_gpus', '1');
  const ftOver = (await (await ftNoFit).json()).report;
  await page.waitForFunction(() => !document.body.classList.contains('busy') && !document.querySelector('#ft-alternatives-box').hidden);
  assert.deepEqual(ftOver, JSON.parse(execFileSync(binary, ['finetune', '--model', 'llama-3.1-70b', '--gpu', 'h100', '--method', 'full', '--gpus', '1',
    '--samples', '50k', '--epochs', '3', '--precision', 'bf16', '--market', 'cn', '--format', 'json'], { encoding: 'utf8' })));
  assert.equal(ftOver.memory.fits, false);
  assert.equal(ftOver.cost, undefined, 'a job that does not fit has no cost');
  assert.equal(await page.textContent('#out-ft-cost'), '–');
  assert.equal(await page.textContent('#out-ft-time'), '–');
  assert.equal((await page.$$('#ft-alternatives tbody tr')).length, ftOver.alternatives.length);
  assert.ok(ftOver.alternatives.length >= 2, 'no alternatives for 70B full fine-tuning on one H100');
  step(`does not fit (70B full on 1 × H100): no time or cost, ${ftOver.alternatives.length} changes that fit, first ${ftOver.alternatives[0].change}`);
  await page.fill('#ft_gpus', '');
  await page.selectOption('#ft_method', 'lora');
  // Infeasible (the example: full fine-tuning of 405B on 4090s): the API's one sentence, the GPU marked.
  const ftBad = page.waitForResponse((r) => r.url().endsWith('/api/finetune/view') && r.status() === 400);
  await page.fill('#ft_deadline', '');
  await page.selectOption('#model', 'llama-3.1-405b');
  await page.selectOption('#ft_method', 'full');
  await page.selectOption('#gpu', 'rtx4090-24gb');
  await ftBad;
  // The page is in Chinese here: the API's error_zh, as gpuplan finetune ... --lang zh prints it.
  await page.waitForFunction(() => !document.querySelector('#error').hidden && /放不下/.test(document.querySelector('#error').textContent) &&
    document.querySelector('#gpu').classList.contains('invalid'));
  const ftZh = spawnSync(binary, ['finetune', '--model', 'llama-3.1-405b', '--method', 'full', '--gpu', 'rtx4090-24gb', '--market', 'cn', '--lang', 'zh'],
    { encoding: 'utf8' });
  assert.equal(ftZh.status, 2);
  // The CLI's sentence in the form's words: its flags named as the fields are labelled.
  const inForm = ftZh.stderr.replace(/^错误：/, '').trim().replace(/--gpu\b/g, '「GPU 型号」').replace(/--method\b/g, '「微调方式」');
  assert.equal(await page.textContent('#error .message'), inForm, 'the page shows the CLI\'s Chinese sentence in the form\'s words');
  assert.ok(!(await page.textContent('#error')).includes('--'), 'the error names a CLI flag');
  // The numbers of the previous inputs are gone while the error stands.
  assert.equal(await page.isHidden('.tab-finetune .kpis'), true, 'the previous numbers stay under the error');
  assert.equal(await page.isHidden('#report'), true, 'the previous report stays under the error');
  await page.screenshot({ path: join(shots, 'finetune-error-zh.png'), fullPage: false });
  step('infeasible fine-tune (405B full on 4090): one Chinese sentence as the CLI prints it, in the form\'s words, the GPU field marked, the old numbers hidden');
  // A bad rank marks its own field.
  await page.selectOption('#ft_method', 'lora');
  await page.fill('#ft_rank', '0');
  await page.waitForFunction(() => !document.querySelector('#error').hidden && document.querySelector('#ft_rank').classList.contains('invalid'));
  await page.fill('#ft_rank', '');
  await page.selectOption('#model', 'llama-3.1-70b');
  await page.selectOption('#gpu', 'h100-sxm5-80gb');
  await page.waitForFunction(() => document.querySelector('#error').hidden && !document.body.classList.contains('busy') &&
    document.querySelector('#out-ft-time').dataset.value);
  // English follows the US market: USD, equal to finetune --market us.
  const ftEn = ftDone((b) => b.market === 'us' && b.model === 'llama-3.1-70b' && b.method === 'lora' && !('rank' in b));
  await page.click('#lang-toggle');
  const ftUs = (await (await ftEn).json()).report;
  await ftReady();
  assert.deepEqual(ftUs, ftCli(['--market', 'us']), 'the US-market fine-tuning report differs from the CLI');
  await page.waitForFunction((v) => document.querySelector('#out-ft-cost').dataset.value === String(v) && /\$/.test(document.querySelector('#out-ft-cost').textContent),
    ftUs.cost.total);
  assert.equal(await page.textContent('[data-i18n="tab_finetune"]'), 'Fine-tuning');
  await page.screenshot({ path: join(shots, 'finetune-en.png'), fullPage: true });
  step(`English: the US market, cost ${await page.textContent('#out-ft-cost')} as finetune --market us; screenshot finetune-en.png`);

  // 5. Memory and planner views (English), screenshots.
  await page.click('.tabs button[data-tab="memory"]');
  await page.waitForFunction(() => document.querySelectorAll('#chart-memory rect').length > 3 && !document.body.classList.contains('busy'));
  assert.match(await page.textContent('#chart-memory figcaption'), /Memory per GPU/);
  await page.screenshot({ path: join(shots, 'memory.png'), fullPage: true });
  step('memory chart drawn');
  // The memory kept free reaches the API: a fraction out of range marks its own field, named in the form's words.
  await page.fill('#safety_margin', '2');
  await page.waitForFunction(() => !document.querySelector('#error').hidden && document.querySelector('#safety_margin').classList.contains('invalid'));
  assert.match(await page.textContent('#error .message'), /Memory kept free/, 'the margin error does not name the field as the form does');
  await page.fill('#safety_margin', '0.15');
  await page.waitForFunction(() => document.querySelector('#error').hidden && !document.body.classList.contains('busy'));
  step('the memory kept free is sent with the request: 2 is refused on its own field');
  await page.click('.tabs button[data-tab="plan"]');
  await page.waitForFunction(() => document.querySelector('#plan-table table, #plan-table .note') && !document.body.classList.contains('busy'), null, { timeout: 120000 });
  if (await page.$('#plan-table table')) {
    await page.waitForFunction(() => document.querySelectorAll('#chart-step rect').length > 3);
    await page.click('#plan-table tbody tr:nth-child(2)');
    await page.waitForFunction(() => document.querySelector('#chart-step figcaption').textContent.includes('pp'));
    step('planner table and step-time chart drawn');
    // The export button: the clicked (second) layout's launch configuration, byte for byte what
    // `gpuplan plan ... --export --rank 2` prints (issue 30; POST /api/plan/export).
    const [download] = await Promise.all([page.waitForEvent('download'), page.click('#export-btn')]);
    assert.equal(download.suggestedFilename(), 'megatron-args.txt');
    const exported = readFileSync(await download.path(), 'utf8');
    const planArgs = ['plan', '--model', 'llama-3.1-70b', '--gpu', 'h100-sxm5-80gb', '--gpus', '1024', '--global-batch', '0', '--framework', 'generic',
      '--market', 'us', '--currency', 'usd'];
    assert.equal(exported, execFileSync(binary, [...planArgs, '--export', '--rank', '2'], { encoding: 'utf8' }), 'the download differs from plan --export --rank 2');
    assert.match(await page.textContent('#export-status'), /megatron-args\.txt.*ranked 2/);
    // The command that starts it, as the CLI's `launch:` line on stderr.
    const cliLaunch = spawnSync(binary, [...planArgs, '--export', '--rank', '2'], { encoding: 'utf8' }).stderr.match(/^launch: (.*)$/m)[1];
    assert.equal(await page.textContent('#export-status code.launch'), cliLaunch, 'the launch line differs from the CLI\'s');
    // A format whose reader cannot run the layout: its one sentence beside the button, in the form's words; the ranking stays.
    await page.selectOption('#export_to', 'deepspeed');
    await page.click('#export-btn');
    await page.waitForFunction(() => document.querySelector('#export-status').classList.contains('failed'));
    const refused = await page.textContent('#export-status');
    const cliRefused = spawnSync(binary, [...planArgs, '--export', 'deepspeed', '--rank', '2'], { encoding: 'utf8' });
    assert.equal(cliRefused.status, 2);
    assert.ok(!refused.includes('--export'), `the refusal names the CLI flag: ${refused}`);
    assert.ok(refused.includes('“Launch configuration of the chosen layout” deepspeed'), `the refusal does not name the field: ${refused}`);
    assert.equal(await page.isVisible('#plan-table table'), true, 'a refused export hid the ranking');
    await page.selectOption('#export_to', '');
    step(`export button: rank 2 downloaded as megatron-args.txt, equal to plan --export --rank 2, its launch line the CLI's; deepspeed refused beside the button`);
    // The ranking in Chinese: the recompute policy in words (issue 30: "none" stayed English).
    const zhPlan = page.waitForResponse((r) => r.url().endsWith('/api/plan/view') && JSON.parse(r.request().postData()).market === 'cn');
    await page.click('#lang-toggle');
    await zhPlan;
    await page.waitForFunction(() => !document.body.classList.contains('busy') && document.querySelector('#plan-table table'), null, { timeout: 120000 });
    assert.deepEqual(await englishWords(page, '#plan-table th, #plan-table td, #plan-box h2, #plan-box label > span, #export-btn, #chart-step figcaption, #chart-step .legend span'), [],
      'English words in the Chinese planner table');
    await page.screenshot({ path: join(shots, 'plan-zh.png'), fullPage: true });
    const enPlan = page.waitForResponse((r) => r.url().endsWith('/api/plan/view') && JSON.parse(r.request().postData()).market === 'us');
    await page.click('#lang-toggle');
    await enPlan;
    await page.waitForFunction(() => !document.body.classList.contains('busy') && document.querySelector('#plan-table table'), null, { timeout: 120000 });
    step('planner table in Chinese: no English words; screenshot plan-zh.png');
  } else {
    step('planner not in this build (page says so)');
  }
  await page.screenshot({ path: join(shots, 'plan.png'), fullPage: true });
  // The framework menu: planned for torchtitan (FSDP2, no ZeRO-1/2 in Dec 2024),
  // the ranking holds only layouts torchtitan can run, and the link keeps the choice.
  if (await page.$('#plan-table table')) {
    await page.selectOption('#framework', 'torchtitan@2024-12');
    await page.waitForFunction(() => location.search.includes('framework=torchtitan') && !document.body.classList.contains('busy') &&
      document.querySelector('#plan-table table'), null, { timeout: 120000 });
    const rows = await page.$$eval('#plan-table tbody tr', (trs) => trs.map((tr) => tr.textContent));
    assert.ok(rows.length > 0, 'torchtitan plan has rows');
    for (const r of rows) assert.ok(!/ZeRO-[12]\b/.test(r), `torchtitan cannot run ${r}`);
    step('framework menu restricts the planner to what torchtitan runs');
    await page.selectOption('#framework', 'generic');
    // The layout pins: TP pinned at 8 reaches the request as `tp` and every ranked layout keeps it.
    await page.waitForFunction(() => !document.body.classList.contains('busy'));
    const pinned = page.waitForResponse((r) => {
      if (!r.url().endsWith('/api/plan/view')) return false;
      try { return JSON.parse(r.request().postData()).tp === '8'; } catch { return false; }
    });
    await page.click('.pins summary');
    await page.fill('#pin_tp', '8');
    await pinned;
    await page.waitForFunction(() => !document.body.classList.contains('busy') && document.querySelector('#plan-table table'));
    const pinnedRows = await page.$$eval('#plan-table tbody tr', (trs) => trs.map((tr) => JSON.parse(tr.dataset.layout)));
    assert.ok(pinnedRows.length > 0, 'the pinned plan has rows');
    for (const r of pinnedRows) assert.equal(r.tp, 8, `a ranked layout left the TP pin: ${JSON.stringify(r)}`);
    await page.fill('#pin_tp', '');
    await page.waitForFunction(() => !document.body.classList.contains('busy'));
    step(`layout pins: TP 8 pinned, all ${pinnedRows.length} ranked layouts keep it`);
  }

  // 5b. Serving tab (issue 13): DeepSeek-V3 in FP8 on H800 at 50 requests/s, over the same library call
  // as `gpuplan infer`; the GPUs and time per output token shown equal the CLI's, and the layouts tried are listed.
  const inferDone = page.waitForResponse((r) => {
    if (!r.url().endsWith('/api/infer/view')) return false;
    try { const b = JSON.parse(r.request().postData()); return b.model === 'deepseek-v3' && b.precision === 'fp8' && b.rps === '50'; } catch { return false; }
  });
  await page.click('.tabs button[data-tab="serve"]');
  await page.selectOption('#model', 'deepseek-v3');
  await page.selectOption('#gpu', 'h800-sxm5-80gb');
  await page.selectOption('#precision', 'fp8');
  await page.fill('#rps', '50');
  await inferDone;
  await page.waitForFunction(() => !document.body.classList.contains('busy') && document.querySelector('#out-serve-gpus').dataset.value &&
    document.querySelectorAll('#serve-table tbody tr').length > 10);
  const served = JSON.parse(execFileSync(binary, ['infer', '--model', 'deepseek-v3', '--gpu', 'h800', '--precision', 'fp8', '--rps', '50',
    '--format', 'json'], { encoding: 'utf8' }));
  assert.equal(Number(await page.getAttribute('#out-serve-gpus', 'data-value')), served.deployment.gpus, 'serving GPUs differ from the CLI');
  assert.equal(Number(await page.getAttribute('#out-serve-tpot', 'data-value')), served.latency.tpot_s, 'TPOT differs from the CLI');
  assert.equal(await page.$$eval('#serve-table tr.chosen-layout', (r) => r.length), 1, 'the chosen layout is marked once');
  assert.ok(served.deployment.feasible === true && served.deployment.nodes_per_replica >= 2);
  await page.screenshot({ path: join(shots, 'serve.png'), fullPage: true });
  step(`serving tab: ${served.deployment.gpus} GPUs, ${served.deployment.layout}, TPOT ${served.latency.tpot_s} s as the CLI`);
  // An unreachable latency target: the API's one sentence, the field marked.
  await page.fill('#latency_target_ms', '1');
  await page.waitForFunction(() => !document.querySelector('#error').hidden && document.querySelector('#latency_target_ms').classList.contains('invalid'));
  assert.match(await page.textContent('#error'), /No deployment found/);
  assert.match(await page.textContent('#error .message'), /meets “TPOT target, ms” 1/, 'the error does not name the form field');
  assert.equal(await page.isHidden('#serve-table'), true, 'the previous layouts stay under the error');
  await page.fill('#latency_target_ms', '');
  await page.waitForFunction(() => document.querySelector('#error').hidden && !document.body.classList.contains('busy'));
  step('an unreachable TPOT target shows one sentence and marks the field');
  // The engine menu: LMDeploy's KV-pool rule and batch limit size the replicas, as `gpuplan infer --engine lmdeploy`.
  const engineDone = page.waitForResponse((r) => {
    if (!r.url().endsWith('/api/infer/view')) return false;
    try { return JSON.parse(r.request().postData()).engine === 'lmdeploy@0.16.0'; } catch { return false; }
  });
  // The menu is the engine profiles (GET /api/engines), each version's label as its value.
  await page.selectOption('#engine', 'lmdeploy@0.16.0');
  await engineDone;
  await page.waitForFunction(() => !document.body.classList.contains('busy') && document.querySelector('#out-serve-gpus').dataset.value);
  const lmd = JSON.parse(execFileSync(binary, ['infer', '--model', 'deepseek-v3', '--gpu', 'h800', '--precision', 'fp8', '--rps', '50',
    '--engine', 'lmdeploy@0.16.0', '--format', 'json'], { encoding: 'utf8' }));
  assert.equal(Number(await page.getAttribute('#out-serve-gpus', 'data-value')), lmd.deployment.gpus, 'LMDeploy serving GPUs differ from the CLI');
  assert.equal(Number(await page.getAttribute('#out-serve-tpot', 'data-value')), lmd.latency.tpot_s, 'LMDeploy TPOT differs from the CLI');
  await page.selectOption('#engine', '');
  await page.waitForFunction(() => !document.body.classList.contains('busy'));
  step(`engine menu: LMDeploy sizes ${lmd.deployment.gpus} GPUs as the CLI's --engine lmdeploy`);
  // The headline and the chosen row agree, and no feasible row needs fewer GPUs (issue 30: 96 in the headline, a
  // feasible 80-GPU row passed over); every row says why it was or was not chosen.
  await page.waitForFunction(() => document.querySelector('#out-serve-gpus').dataset.value);
  const headline = Number(await page.getAttribute('#out-serve-gpus', 'data-value'));
  const rows = await page.$$eval('#serve-table tbody tr', (trs) => trs.map((tr) => ({ feasible: tr.dataset.feasible === 'true',
    chosen: tr.classList.contains('chosen-layout'), gpus: tr.cells[8].textContent, note: tr.cells[10].textContent })));
  const chosenRow = rows.find((r) => r.chosen);
  assert.ok(chosenRow, 'no chosen row');
  assert.equal(Number(chosenRow.gpus.replace(/[^0-9]/g, '')), headline, 'the headline and the chosen row differ');
  for (const r of rows.filter((x) => x.feasible)) {
    assert.ok(Number(r.gpus.replace(/[^0-9]/g, '')) >= headline, `a feasible row needs ${r.gpus}, fewer than the headline's ${headline}`);
    assert.ok(r.note.length > 0, 'a feasible row does not say why it was not chosen');
  }
  // Chinese: the table's header, cells and notes are Chinese (issue 30: 说明, "DP-attn" and "none" were English).
  const zhServe = page.waitForResponse((r) => r.url().endsWith('/api/infer/view') && JSON.parse(r.request().postData()).market === 'cn');
  await page.click('#lang-toggle');
  await zhServe;
  await page.waitForFunction(() => !document.body.classList.contains('busy') && document.querySelector('#out-serve-gpus').dataset.value);
  assert.deepEqual(await englishWords(page, '#serve-table th, #serve-table td, .tab-serve .kpi, #serve-box h2'), [], 'English words in the Chinese serving tab');
  assert.ok((await page.textContent('#serve-table thead')).includes('注意力 DP'));
  await page.screenshot({ path: join(shots, 'serve-zh.png'), fullPage: true });
  step('serving tab in Chinese: headline equals the chosen row, no feasible row needs fewer GPUs, every cell Chinese; screenshot serve-zh.png');
  await page.click('#lang-toggle');
  await page.waitForFunction(() => !document.body.classList.contains('busy'));
  // A named quantisation method on llama.cpp: Q4_K_M's bytes and llama.cpp's one static batch a replica,
  // the same numbers as `gpuplan infer --weight-quant gguf-q4_k_m --engine llama.cpp@b4747`.
  const gg = JSON.parse(execFileSync(binary, ['infer', '--model', 'llama-3.1-8b', '--gpu', 'rtx4090', '--weight-quant', 'gguf-q4_k_m',
    '--engine', 'llama.cpp@b4747', '--rps', '50', '--format', 'json'], { encoding: 'utf8' }));
  await page.selectOption('#precision', 'fp16');
  await page.selectOption('#model', 'llama-3.1-8b');
  await page.selectOption('#gpu', 'rtx4090-24gb');
  await page.selectOption('#weight_quant', 'gguf-q4_k_m');
  await page.selectOption('#engine', 'llama.cpp@b4747');
  await page.waitForFunction((want) => !document.body.classList.contains('busy') &&
    Number(document.querySelector('#out-serve-tpot').dataset.value) === want, gg.latency.tpot_s, { timeout: 60000 });
  assert.equal(Number(await page.getAttribute('#out-serve-gpus', 'data-value')), gg.deployment.gpus, 'llama.cpp GPUs differ from the CLI');
  step(`weight quantisation and llama.cpp: ${gg.deployment.gpus} × RTX 4090, TPOT ${gg.latency.tpot_s} s as infer --weight-quant gguf-q4_k_m --engine llama.cpp`);
  await page.selectOption('#weight_quant', '');
  await page.selectOption('#engine', '');
  await page.waitForFunction(() => !document.body.classList.contains('busy'));
  await page.click('.tabs button[data-tab="plan"]');

  // 6. A phone-sized screen.
  const phone = await context.newPage();
  await phone.setViewportSize({ width: 390, height: 844 });
  await phone.goto(shared.replace('tab=plan', 'tab=train'));
  await phone.waitForFunction(() => document.body.dataset.ready === '1' && document.querySelector('#out-time').dataset.value);
  await phone.waitForFunction(() => document.querySelectorAll('#chart-time circle').length >= 8, null, { timeout: 60000 });
  const overflow = await phone.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(overflow <= 1, `page is ${overflow}px wider than a phone screen`);
  await phone.screenshot({ path: join(shots, 'phone.png'), fullPage: true });
  step('phone layout fits the screen width');

  assert.deepEqual(errors, [], 'errors in the page');
  console.log(`PASS (screenshots in ${shots})`);
} catch (e) {
  console.error('FAIL:', e);
  process.exitCode = 1;
} finally {
  if (context) await context.close().catch(() => {});
  if (server) server.proc.kill('SIGTERM');
  if (profile) rmSync(profile, { recursive: true, force: true });
}
