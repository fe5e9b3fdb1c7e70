/**
 * The plan view's page (mcp/plan-view.ts serves it): one self-contained HTML document, inline CSS
 * and script, no network. Imported only when the resource is read, so `serve` does not load it
 * at start.
 */

/*
 * The page. Data reaches the DOM through textContent only; no innerHTML, no URL. It renders
 * propose's result, then, where the host proxies tool calls (hostCapabilities.serverTools),
 * calls one tool, the read-only onboarding_plan_view (mcp/plan-view.ts PLAN_VIEW_DATA_TOOL,
 * written out: importing it would split mcp/plan-view.ts into a chunk of its own that `serve`
 * loads at start; test/e2e/plan-view.test.ts checks the name), for the whole plan.
 */
export const PLAN_VIEW_HTML = `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'">
<title>Plan view</title>
<style>
:root{color-scheme:light dark;--bg:#fff;--bg2:#f4f5f7;--fg:#1f2328;--fg2:#59636e;--bd:#d1d9e0;--ok:#1a7f37;--warn:#9a6700}
@media (prefers-color-scheme:dark){:root{--bg:#1e1e1e;--bg2:#2a2b2e;--fg:#e6e6e6;--fg2:#a8adb3;--bd:#3d4147;--ok:#57ab5a;--warn:#d29922}}
:root[data-theme=light]{color-scheme:light;--bg:#fff;--bg2:#f4f5f7;--fg:#1f2328;--fg2:#59636e;--bd:#d1d9e0;--ok:#1a7f37;--warn:#9a6700}
:root[data-theme=dark]{color-scheme:dark;--bg:#1e1e1e;--bg2:#2a2b2e;--fg:#e6e6e6;--fg2:#a8adb3;--bd:#3d4147;--ok:#57ab5a;--warn:#d29922}
html,body{margin:0;background:var(--color-background-primary,var(--bg));color:var(--color-text-primary,var(--fg));font:14px/1.45 var(--font-sans,system-ui,sans-serif)}
main{padding:12px 14px;overflow:auto;max-height:100vh;box-sizing:border-box}
h1{font-size:16px;margin:0 0 4px}h2{font-size:14px;margin:16px 0 6px}
code,.mono{font-family:var(--font-mono,ui-monospace,monospace);font-size:12.5px;overflow-wrap:anywhere}
.muted{color:var(--color-text-secondary,var(--fg2))}
.file{border:1px solid var(--color-border-primary,var(--bd));border-radius:var(--border-radius-md,6px);padding:8px 10px;margin:6px 0;background:var(--color-background-secondary,var(--bg2))}
.op{font-weight:600;text-transform:capitalize;margin-right:6px}.op.create{color:var(--color-text-success,var(--ok))}.op.modify,.op.delete{color:var(--color-text-warning,var(--warn))}
ul{margin:4px 0;padding-left:20px}
.diff{border:1px solid var(--color-border-primary,var(--bd));border-radius:var(--border-radius-md,6px);margin:6px 0;overflow-x:auto}
.diff div{white-space:pre-wrap;overflow-wrap:anywhere;padding:0 8px}
.diff .del{background:rgba(207,34,46,.12)}.diff .add{background:rgba(26,127,55,.14)}.diff .gap{color:var(--color-text-secondary,var(--fg2));font-style:italic}
.to{color:var(--color-text-secondary,var(--fg2))}
</style></head>
<body><main>
<h1 id="title">Plan view</h1>
<div id="hash" class="muted">Waiting for the result of onboarding_propose…</div>
<div id="summary"></div><div id="whole" class="muted"></div>
<h2 id="loads-h" hidden>What loads where</h2><div id="loads"></div>
<h2 id="files-h" hidden>Files</h2><div id="files"></div>
<h2 id="repo-h" hidden>Stays repository-wide</h2><ul id="repo"></ul>
<h2 id="diff-h" hidden>Repository-wide file</h2><div id="diff-s" class="muted"></div><div id="diff" class="diff mono" hidden></div>
<p class="muted">Read-only. Approve with onboarding_approve: its form shows the same plan id and SHA-256.</p>
</main>
<script>
(function(){
"use strict";
var root=document.documentElement;
function el(tag,text,cls){var e=document.createElement(tag);if(text!=null)e.textContent=String(text);if(cls)e.className=cls;return e;}
function post(m){window.parent.postMessage(Object.assign({jsonrpc:"2.0"},m),"*");}
function theme(ctx){
  if(!ctx||typeof ctx!=="object")return;
  if(ctx.theme==="light"||ctx.theme==="dark")root.setAttribute("data-theme",ctx.theme);
  var v=ctx.styles&&ctx.styles.variables;
  if(v&&typeof v==="object")Object.keys(v).forEach(function(k){
    if(/^--(color|font|border|shadow)-[a-z0-9-]+$/.test(k)&&typeof v[k]==="string")root.style.setProperty(k,v[k]);
  });
}
function n(x){return Math.round(Number(x)).toLocaleString("en");}
function clear(n){while(n.firstChild)n.removeChild(n.firstChild);}
function render(sc,whole){
  if(!sc||typeof sc.planId!=="string")return;
  document.getElementById("title").textContent="Plan "+sc.planId;
  var h=document.getElementById("hash");h.className="mono";
  h.textContent="SHA-256 "+String(sc.sha256).slice(0,12)+"\\u2026  ("+sc.sha256+")";
  var s=document.getElementById("summary");clear(s);
  s.appendChild(el("div","Pattern: "+sc.pattern+". Risk: "+sc.risk+(sc.riskReasons&&sc.riskReasons.length?" ("+sc.riskReasons.join("; ")+")":"")+"."));
  if(sc.lossless)s.appendChild(el("div",sc.lossless.ok?"Lossless check: passed.":"Lossless check: FAILED, do not approve."));
  var L=sc.loads,lo=document.getElementById("loads");clear(lo);
  document.getElementById("loads-h").hidden=!L;
  if(L){
    lo.appendChild(el("div",L.line));
    lo.appendChild(el("div","Repository-wide (every request): "+n(L.alwaysOn.before)+" \u2192 "+n(L.alwaysOn.after)+" characters.","muted"));
    var ul=el("ul");
    (L.surfaces||[]).forEach(function(x){ul.appendChild(el("li",x.name+": per file, mean "+n(x.before.mean)+" \u2192 "+n(x.after.mean)+", p90 "+n(x.before.p90)+" \u2192 "+n(x.after.p90)+", max "+n(x.before.max)+" \u2192 "+n(x.after.max)+" characters ("+n(x.after.files)+" files)."));});
    lo.appendChild(ul);
  }
  view(sc.planView||{files:[],repoWide:[]},whole);
}
function view(v,whole){
  var f=document.getElementById("files");clear(f);
  document.getElementById("files-h").hidden=false;
  document.getElementById("files-h").textContent="Files ("+v.files.length+")";
  if(!v.files.length)f.appendChild(el("div","Nothing to migrate.","muted"));
  v.files.forEach(function(x){
    var d=el("div",null,"file");d.setAttribute("data-path",x.path);
    var head=el("div");head.appendChild(el("span",x.op,"op "+x.op));head.appendChild(el("code",x.path));
    head.appendChild(el("span","  "+x.size.toLocaleString("en")+" bytes","muted"));d.appendChild(head);
    x.globs.forEach(function(g){
      var line=el("div");line.appendChild(el("span","applyTo ","muted"));line.appendChild(el("code",g.glob));
      line.appendChild(el("span","  matches "+g.matches+(v.filesTruncated?"+":"")+" file"+(g.matches===1?"":"s"),"muted"));d.appendChild(line);
    });
    if(x.sections.length){var ul=el("ul");x.sections.forEach(function(t){ul.appendChild(el("li",t));});d.appendChild(ul);}
    f.appendChild(d);
  });
  var r=document.getElementById("repo");clear(r);
  document.getElementById("repo-h").hidden=!v.repoWide.length;
  document.getElementById("repo-h").textContent="Stays repository-wide ("+v.repoWide.length+")";
  v.repoWide.forEach(function(x){var li=el("li",x.title);li.appendChild(el("span","  "+x.source,"muted"));r.appendChild(li);});
  var D=v.repoWideDiff,dd=document.getElementById("diff"),ds=document.getElementById("diff-s");clear(dd);clear(ds);
  document.getElementById("diff-h").hidden=!D;dd.hidden=!D;
  if(D){
    document.getElementById("diff-h").textContent=D.path+" before \u2192 after";
    ds.textContent=n(D.before.lines)+" \u2192 "+n(D.after.lines)+" lines, "+n(D.before.chars)+" \u2192 "+n(D.after.chars)+" characters. - moves to the file named, + is new"+(whole?"; every line is shown.":", unchanged runs are shortened.");
    var prev=null;
    D.rows.forEach(function(x){
      if(x.op==="-"&&x.to!==prev&&x.to)dd.appendChild(el("div","\u2192 "+x.to,"to"));
      prev=x.op==="-"?x.to:null;
      dd.appendChild(el("div",x.op==="\u2026"?"\u2026 "+x.text:x.op+" "+x.text,x.op==="-"?"del":x.op==="+"?"add":x.op===" "?"":"gap"));
    });
  }
}
var initId=1,dataId=1,watching=false,caps={},shown=null;
function note(t){document.getElementById("whole").textContent=t;}
function whole(sc){
  if(!sc||typeof sc.planId!=="string")return;
  shown=sc;
  if(!caps.serverTools)return note("This host does not let the view load the whole plan: the diff below is shortened; every moved line is whole in its destination file.");
  note("Loading the whole plan\u2026");
  post({id:++dataId,method:"tools/call",params:{name:"onboarding_plan_view",arguments:{planId:sc.planId}}});
}
function got(m){
  var r=m.result,d=r&&r.structuredContent;
  if(!m.error&&r&&!r.isError&&d&&d.planView&&d.planId===shown.planId&&d.sha256===shown.sha256){render(Object.assign({},shown,{riskReasons:d.riskReasons,planView:d.planView}),true);return note("The whole plan: every file and every line of the diff.");}
  var why=m.error?m.error.message:r&&r.content&&r.content[0]&&r.content[0].text;
  note("The whole plan could not be loaded ("+String(why||"another plan").slice(0,500)+"); below, the shortened form from the propose result.");
}
window.addEventListener("message",function(ev){
  if(ev.source!==window.parent)return;
  var m=ev.data;if(!m||m.jsonrpc!=="2.0")return;
  if(m.id===initId&&!m.method){
    if(watching)return;watching=true;
    if(m.result){theme(m.result.hostContext);caps=m.result.hostCapabilities||{};}
    post({method:"ui/notifications/initialized",params:{}});
    watchSize();
    return;
  }
  if(m.id===dataId&&dataId>initId&&!m.method&&shown)return got(m);
  if(m.method==="ui/notifications/tool-result"){var sc=m.params&&m.params.structuredContent;render(sc,false);whole(sc);}
  else if(m.method==="ui/notifications/host-context-changed")theme(m.params);
  else if(m.method&&m.id!=null){
    if(m.method==="ping"||m.method==="ui/resource-teardown")post({id:m.id,result:{}});
    else post({id:m.id,error:{code:-32601,message:"The plan view handles no "+m.method+" request."}});
  }
});
var last="";
function watchSize(){
  if(typeof ResizeObserver==="function")new ResizeObserver(function(){
    var w=Math.ceil(root.scrollWidth),h=Math.ceil(document.body.scrollHeight),k=w+"x"+h;
    if(k!==last){last=k;post({method:"ui/notifications/size-changed",params:{width:w,height:h}});}
  }).observe(document.body);
}
post({id:initId,method:"ui/initialize",params:{protocolVersion:"2026-01-26",appInfo:{name:"copilot-onboarding plan view",version:"1"},appCapabilities:{availableDisplayModes:["inline"]}}});
})();
</script></body></html>
`;
