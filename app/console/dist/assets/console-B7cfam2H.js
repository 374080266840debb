import{A as lt,s as wt,c as $n,e as Ht,f as Tn,a as En,K as Pn,g as Dn}from"./keystore-DvX34wAy.js";var Ke,R,jt,le,It,Gt,Wt,We,Pe,we,zt,it,Xe,et,Jt,xe={},Le=[],Rn=/acit|ex(?:s|g|n|p|$)|rph|grid|ows|mnc|ntw|ine[ch]|zoo|^ord|itera/i,Ve=Array.isArray;function ne(t,n){for(var r in n)t[r]=n[r];return t}function ct(t){t&&t.parentNode&&t.parentNode.removeChild(t)}function Nn(t,n,r){var o,a,s,l={};for(s in n)s=="key"?o=n[s]:s=="ref"?a=n[s]:l[s]=n[s];if(arguments.length>2&&(l.children=arguments.length>3?Ke.call(arguments,2):r),typeof t=="function"&&t.defaultProps!=null)for(s in t.defaultProps)l[s]===void 0&&(l[s]=t.defaultProps[s]);return De(t,l,o,a,null)}function De(t,n,r,o,a){var s={type:t,props:n,key:r,ref:o,__k:null,__:null,__b:0,__e:null,__c:null,constructor:void 0,__v:a??++jt,__i:-1,__u:0};return a==null&&R.vnode!=null&&R.vnode(s),s}function S(t){return t.children}function Re(t,n){this.props=t,this.context=n}function de(t,n){if(n==null)return t.__?de(t.__,t.__i+1):null;for(var r;n<t.__k.length;n++)if((r=t.__k[n])!=null&&r.__e!=null)return r.__e;return typeof t.type=="function"?de(t):null}function xn(t){if(t.__P&&t.__d){var n=t.__v,r=n.__e,o=[],a=[],s=ne({},n);s.__v=n.__v+1,R.vnode&&R.vnode(s),dt(t.__P,s,n,t.__n,t.__P.namespaceURI,32&n.__u?[r]:null,o,r??de(n),!!(32&n.__u),a),s.__v=n.__v,s.__.__k[s.__i]=s,en(o,s,a),n.__e=n.__=null,s.__e!=r&&Zt(s)}}function Zt(t){if((t=t.__)!=null&&t.__c!=null)return t.__e=t.__c.base=null,t.__k.some(function(n){if(n!=null&&n.__e!=null)return t.__e=t.__c.base=n.__e}),Zt(t)}function tt(t){(!t.__d&&(t.__d=!0)&&le.push(t)&&!Me.__r++||It!=R.debounceRendering)&&((It=R.debounceRendering)||Gt)(Me)}function Me(){try{for(var t,n=1;le.length;)le.length>n&&le.sort(Wt),t=le.shift(),n=le.length,xn(t)}finally{le.length=Me.__r=0}}function Qt(t,n,r,o,a,s,l,c,d,i,p){var h,u,f,b,v,y,_=o&&o.__k||Le,g=n.length;for(d=Ln(r,n,_,d,g),h=0;h<g;h++)(f=r.__k[h])!=null&&(u=f.__i!=-1&&_[f.__i]||xe,f.__i=h,y=dt(t,f,u,a,s,l,c,d,i,p),b=f.__e,f.ref&&u.ref!=f.ref&&(u.ref&&ut(u.ref,null,f),p.push(f.ref,f.__c||b,f)),v==null&&b!=null&&(v=b),4&f.__u?(d=Yt(f,d,t),u.__e&&(u.__e=null)):typeof f.type=="function"&&y!==void 0?d=y:b&&(d=b.nextSibling),f.__u&=-7);return r.__e=v,d}function Ln(t,n,r,o,a){var s,l,c,d,i,p=r.length,h=p,u=0;for(t.__k=new Array(a),s=0;s<a;s++)(l=n[s])!=null&&typeof l!="boolean"&&typeof l!="function"?(typeof l=="string"||typeof l=="number"||typeof l=="bigint"||l.constructor==String?l=t.__k[s]=De(null,l,null,null,null):Ve(l)?l=t.__k[s]=De(S,{children:l},null,null,null):l.constructor===void 0&&l.__b>0?l=t.__k[s]=De(l.type,l.props,l.key,l.ref?l.ref:null,l.__v):t.__k[s]=l,d=s+u,l.__=t,l.__b=t.__b+1,c=null,(i=l.__i=Mn(l,r,d,h))!=-1&&(h--,(c=r[i])&&(c.__u|=2)),c==null||c.__v==null?(i==-1&&(a>p?u--:a<p&&u++),typeof l.type!="function"&&(l.__u|=4)):i!=d&&(i==d-1?u--:i==d+1?u++:(i>d?u--:u++,l.__u|=4))):t.__k[s]=null;if(h)for(s=0;s<p;s++)(c=r[s])!=null&&(2&c.__u)==0&&(c.__e==o&&(o=de(c)),nn(c,c));return o}function Yt(t,n,r){var o,a;if(typeof t.type=="function"){for(o=t.__k,a=0;o&&a<o.length;a++)o[a]&&(o[a].__=t,n=Yt(o[a],n,r));return n}t.__e!=n&&(n&&t.type&&!n.parentNode&&(n=de(t)),n=r.insertBefore(t.__e,n||null));do n=n&&n.nextSibling;while(n!=null&&n.nodeType==8);return n}function Mn(t,n,r,o){var a,s,l,c=t.key,d=t.type,i=n[r],p=i!=null&&(2&i.__u)==0;if(i===null&&c==null||p&&c==i.key&&d==i.type)return r;if(o>(p?1:0)){for(a=r-1,s=r+1;a>=0||s<n.length;)if((i=n[l=a>=0?a--:s++])!=null&&(2&i.__u)==0&&c==i.key&&d==i.type)return l}return-1}function Ct(t,n,r){n[0]=="-"?t.setProperty(n,r??""):t[n]=r==null?"":typeof r!="number"||Rn.test(n)?r:r+"px"}function Ee(t,n,r,o,a){var s,l;e:if(n=="style")if(typeof r=="string")t.style.cssText=r;else{if(typeof o=="string"&&(t.style.cssText=o=""),o)for(n in o)r&&n in r||Ct(t.style,n,"");if(r)for(n in r)o&&r[n]==o[n]||Ct(t.style,n,r[n])}else if(n[0]=="o"&&n[1]=="n")s=n!=(n=n.replace(zt,"$1")),l=n.toLowerCase(),n=l in t||n=="onFocusOut"||n=="onFocusIn"?l.slice(2):n.slice(2),t.l||(t.l={}),t.l[n+s]=r,r?o?r[we]=o[we]:(r[we]=it,t.addEventListener(n,s?et:Xe,s)):t.removeEventListener(n,s?et:Xe,s);else{if(a=="http://www.w3.org/2000/svg")n=n.replace(/xlink(H|:h)/,"h").replace(/sName$/,"s");else if(n!="width"&&n!="height"&&n!="href"&&n!="list"&&n!="form"&&n!="tabIndex"&&n!="download"&&n!="rowSpan"&&n!="colSpan"&&n!="role"&&n!="popover"&&n in t)try{t[n]=r??"";break e}catch{}typeof r=="function"||(r==null||r===!1&&n[4]!="-"?t.removeAttribute(n):t.setAttribute(n,n=="popover"&&r==1?"":r))}}function kt(t){return function(n){if(this.l){var r=this.l[n.type+t];if(n[Pe]==null)n[Pe]=it++;else if(n[Pe]<r[we])return;return r(R.event?R.event(n):n)}}}function dt(t,n,r,o,a,s,l,c,d,i){var p,h,u,f,b,v,y,_,g,w,U,D,W,T,J,E,P=n.type;if(n.constructor!==void 0)return null;128&r.__u&&(d=!!(32&r.__u),s=[c=n.__e=r.__e]),(p=R.__b)&&p(n);e:if(typeof P=="function"){h=l.length;try{if(g=n.props,w=P.prototype&&P.prototype.render,U=(p=P.contextType)&&o[p.__c],D=p?U?U.props.value:p.__:o,r.__c?_=(u=n.__c=r.__c).__=u.__E:(w?n.__c=u=new P(g,D):(n.__c=u=new Re(g,D),u.constructor=P,u.render=Un),U&&U.sub(u),u.state||(u.state={}),u.__n=o,f=u.__d=!0,u.__h=[],u._sb=[]),w&&u.__s==null&&(u.__s=u.state),w&&P.getDerivedStateFromProps!=null&&(u.__s==u.state&&(u.__s=ne({},u.__s)),ne(u.__s,P.getDerivedStateFromProps(g,u.__s))),b=u.props,v=u.state,u.__v=n,f)w&&P.getDerivedStateFromProps==null&&u.componentWillMount!=null&&u.componentWillMount(),w&&u.componentDidMount!=null&&u.__h.push(u.componentDidMount);else{if(w&&P.getDerivedStateFromProps==null&&g!==b&&u.componentWillReceiveProps!=null&&u.componentWillReceiveProps(g,D),n.__v==r.__v||!u.__e&&u.shouldComponentUpdate!=null&&u.shouldComponentUpdate(g,u.__s,D)===!1){n.__v!=r.__v&&(u.props=g,u.state=u.__s,u.__d=!1),n.__e=r.__e,n.__k=r.__k,n.__k.some(function(F){F&&(F.__=n)}),Le.push.apply(u.__h,u._sb),u._sb=[],u.__h.length&&l.push(u),c=de(r);break e}u.componentWillUpdate!=null&&u.componentWillUpdate(g,u.__s,D),w&&u.componentDidUpdate!=null&&u.__h.push(function(){u.componentDidUpdate(b,v,y)})}if(u.context=D,u.props=g,u.__P=t,u.__e=!1,W=R.__r,T=0,w)u.state=u.__s,u.__d=!1,W&&W(n),p=u.render(u.props,u.state,u.context),Le.push.apply(u.__h,u._sb),u._sb=[];else do u.__d=!1,W&&W(n),p=u.render(u.props,u.state,u.context),u.state=u.__s;while(u.__d&&++T<25);u.state=u.__s,u.getChildContext!=null&&(o=ne(ne({},o),u.getChildContext())),w&&!f&&u.getSnapshotBeforeUpdate!=null&&(y=u.getSnapshotBeforeUpdate(b,v)),J=p!=null&&p.type===S&&p.key==null?tn(p.props.children):p,c=Qt(t,Ve(J)?J:[J],n,r,o,a,s,l,c,d,i),u.base=n.__e,n.__u&=-161,u.__h.length&&l.push(u),_&&(u.__E=u.__=null)}catch(F){if(l.length=h,n.__v=null,d||s!=null){if(F.then){for(n.__u|=d?160:128;c&&c.nodeType==8&&c.nextSibling;)c=c.nextSibling;s!=null&&(s[s.indexOf(c)]=null),n.__e=c}else if(s!=null)for(E=s.length;E--;)ct(s[E])}else n.__e=r.__e;n.__k==null&&(n.__k=r.__k||[]),F.then||Xt(n),R.__e(F,n,r)}}else s==null&&n.__v==r.__v?(n.__k=r.__k,n.__e=r.__e):c=n.__e=qn(r.__e,n,r,o,a,s,l,d,i);return(p=R.diffed)&&p(n),128&n.__u?void 0:c}function Xt(t){t&&(t.__c&&(t.__c.__e=!0),t.__k&&t.__k.some(Xt))}function en(t,n,r){for(var o=0;o<r.length;o++)ut(r[o],r[++o],r[++o]);R.__c&&R.__c(n,t),t.some(function(a){try{t=a.__h,a.__h=[],t.some(function(s){s.call(a)})}catch(s){R.__e(s,a.__v)}})}function tn(t){return typeof t!="object"||t==null||t.__b>0?t:Ve(t)?t.map(tn):t.constructor!==void 0?null:ne({},t)}function qn(t,n,r,o,a,s,l,c,d){var i,p,h,u,f,b,v,y=r.props||xe,_=n.props,g=n.type;if(g=="svg"?a="http://www.w3.org/2000/svg":g=="math"?a="http://www.w3.org/1998/Math/MathML":a||(a="http://www.w3.org/1999/xhtml"),s!=null){for(i=0;i<s.length;i++)if((f=s[i])&&"setAttribute"in f==!!g&&(g?f.localName==g:f.nodeType==3)){t=f,s[i]=null;break}}if(t==null){if(g==null)return document.createTextNode(_);t=document.createElementNS(a,g,_.is&&_),c&&(R.__m&&R.__m(n,s),c=!1),s=null}if(g==null)y===_||c&&t.data==_||(t.data=_);else{if(s=g=="textarea"&&_.defaultValue!=null?null:s&&Ke.call(t.childNodes),!c&&s!=null)for(y={},i=0;i<t.attributes.length;i++)y[(f=t.attributes[i]).name]=f.value;for(i in y)f=y[i],i=="dangerouslySetInnerHTML"?h=f:i=="children"||i in _||i=="value"&&"defaultValue"in _||i=="checked"&&"defaultChecked"in _||Ee(t,i,null,f,a);for(i in _)f=_[i],i=="children"?u=f:i=="dangerouslySetInnerHTML"?p=f:i=="value"?b=f:i=="checked"?v=f:c&&typeof f!="function"||y[i]===f||Ee(t,i,f,y[i],a);if(p)c||h&&(p.__html==h.__html||p.__html==t.innerHTML)||(t.innerHTML=p.__html),n.__k=[];else if(h&&(t.innerHTML=""),Qt(n.type=="template"?t.content:t,Ve(u)?u:[u],n,r,o,g=="foreignObject"?"http://www.w3.org/1999/xhtml":a,s,l,s?s[0]:r.__k&&de(r,0),c,d),s!=null)for(i=s.length;i--;)ct(s[i]);c&&g!="textarea"||(i="value",g=="progress"&&b==null?t.removeAttribute("value"):b!=null&&(b!==t[i]||g=="progress"&&!b||g=="option"&&b!=y[i])&&Ee(t,i,b,y[i],a),i="checked",v!=null&&v!=t[i]&&Ee(t,i,v,y[i],a))}return t}function ut(t,n,r){try{if(typeof t=="function"){var o=typeof t.__u=="function";o&&t.__u(),o&&n==null||(t.__u=t(n))}else t.current=n}catch(a){R.__e(a,r)}}function nn(t,n,r){var o,a;if(R.unmount&&R.unmount(t),(o=t.ref)&&(o.current&&o.current!=t.__e||ut(o,null,n)),(o=t.__c)!=null){if(o.componentWillUnmount)try{o.componentWillUnmount()}catch(s){R.__e(s,n)}o.base=o.__P=o.__n=null}if(o=t.__k)for(a=0;a<o.length;a++)o[a]&&nn(o[a],n,r||typeof t.type!="function");r||ct(t.__e),t.__c=t.__=t.__e=void 0}function Un(t,n,r){return this.constructor(t,r)}function Bn(t,n,r){var o,a,s,l;n==document&&(n=document.documentElement),R.__&&R.__(t,n),a=(o=!1)?null:n.__k,s=[],l=[],dt(n,t=n.__k=Nn(S,null,[t]),a||xe,xe,n.namespaceURI,a?null:n.firstChild?Ke.call(n.childNodes):null,s,a?a.__e:n.firstChild,o,l),en(s,t,l),t.props.children=null}function On(t){function n(r){var o,a;return this.getChildContext||(o=new Set,(a={})[n.__c]=this,this.getChildContext=function(){return a},this.componentWillUnmount=function(){o=null},this.shouldComponentUpdate=function(s){this.props.value!=s.value&&o.forEach(function(l){l.__e=!0,tt(l)})},this.sub=function(s){o.add(s);var l=s.componentWillUnmount;s.componentWillUnmount=function(){o&&o.delete(s),l&&l.call(s)}}),r.children}return n.__c="__cC"+Jt++,n.__=t,n.Provider=n.__l=(n.Consumer=function(r,o){return r.children(o)}).contextType=n,n}Ke=Le.slice,R={__e:function(t,n,r,o){for(var a,s,l;n=n.__;)if((a=n.__c)&&!a.__)try{if((s=a.constructor)&&s.getDerivedStateFromError!=null&&(a.setState(s.getDerivedStateFromError(t)),l=a.__d),a.componentDidCatch!=null&&(a.componentDidCatch(t,o||{}),l=a.__d),l)return a.__E=a}catch(c){t=c}throw t}},jt=0,Re.prototype.setState=function(t,n){var r;r=this.__s!=null&&this.__s!=this.state?this.__s:this.__s=ne({},this.state),typeof t=="function"&&(t=t(ne({},r),this.props)),t&&ne(r,t),t!=null&&this.__v&&(n&&this._sb.push(n),tt(this))},Re.prototype.forceUpdate=function(t){this.__v&&(this.__e=!0,t&&this.__h.push(t),tt(this))},Re.prototype.render=S,le=[],Gt=typeof Promise=="function"?Promise.prototype.then.bind(Promise.resolve()):setTimeout,Wt=function(t,n){return t.__v.__b-n.__v.__b},Me.__r=0,We=Math.random().toString(8),Pe="__d"+We,we="__a"+We,zt=/(PointerCapture)$|Capture$/i,it=0,Xe=kt(!1),et=kt(!0),Jt=0;var Kn=0;function e(t,n,r,o,a,s){n||(n={});var l,c,d=n;if("ref"in d)for(c in d={},n)c=="ref"?l=n[c]:d[c]=n[c];var i={type:t,props:d,key:r,ref:l,__k:null,__:null,__b:0,__e:null,__c:null,constructor:void 0,__v:--Kn,__i:-1,__u:0,__source:a,__self:s};if(typeof t=="function"&&(l=t.defaultProps))for(c in l)d[c]===void 0&&(d[c]=l[c]);return R.vnode&&R.vnode(i),i}var ue,M,ze,At,Ie=0,rn=[],O=R,$t=O.__b,Tt=O.__r,Et=O.diffed,Pt=O.__c,Dt=O.unmount,Rt=O.__;function Ce(t,n){O.__h&&O.__h(M,t,Ie||n),Ie=0;var r=M.__H||(M.__H={__:[],__h:[]});return t>=r.__.length&&r.__.push({}),r.__[t]}function m(t){return Ie=1,Vn(sn,t)}function Vn(t,n,r){var o=Ce(ue++,2);if(o.t=t,!o.__c&&(o.__=[sn(void 0,n),function(c){var d=o.__N?o.__N[0]:o.__[0],i=o.t(d,c);d!==i&&(o.__N=[i,o.__[1]],o.__c.setState({}))}],o.__c=M,!M.__f)){var a=function(c,d,i){if(!o.__c.__H)return!0;var p=!1,h=o.__c.props!==c;if(o.__c.__H.__.some(function(f){if(f.__N){p=!0;var b=f.__[0];f.__=f.__N,f.__N=void 0,b!==f.__[0]&&(h=!0)}}),s){var u=s.call(this,c,d,i);return p?u||h:u}return!p||h};M.__f=!0;var s=M.shouldComponentUpdate,l=M.componentWillUpdate;M.componentWillUpdate=function(c,d,i){if(this.__e){var p=s;s=void 0,a(c,d,i),s=p}l&&l.call(this,c,d,i)},M.shouldComponentUpdate=a}return o.__N||o.__}function N(t,n){var r=Ce(ue++,3);!O.__s&&on(r.__H,n)&&(r.__=t,r.u=n,M.__H.__h.push(r))}function Fe(t){return Ie=5,ge(function(){return{current:t}},[])}function ge(t,n){var r=Ce(ue++,7);return on(r.__H,n)&&(r.__=t(),r.__H=n,r.__h=t),r.__}function qe(t,n){return Ie=8,ge(function(){return t},n)}function Fn(t){var n=M.context[t.__c],r=Ce(ue++,9);return r.c=t,n?(r.__==null&&(r.__=!0,n.sub(M)),n.props.value):t.__}function Hn(){var t=Ce(ue++,11);if(!t.__){for(var n=M.__v;n!==null&&!n.__m&&n.__!==null;)n=n.__;var r=n.__m||(n.__m=[0,0]);t.__="P"+r[0]+"-"+r[1]++}return t.__}function jn(){for(var t;t=rn.shift();){var n=t.__H;if(t.__P&&n)try{n.__h.some(Ne),n.__h.some(nt),n.__h=[]}catch(r){n.__h=[],O.__e(r,t.__v)}}}O.__b=function(t){M=null,$t&&$t(t)},O.__=function(t,n){t&&n.__k&&n.__k.__m&&(t.__m=n.__k.__m),Rt&&Rt(t,n)},O.__r=function(t){Tt&&Tt(t),ue=0;var n=(M=t.__c).__H;n&&(ze===M?(n.__h=[],M.__h=[],n.__.some(function(r){r.__N&&(r.__=r.__N),r.u=r.__N=void 0})):(n.__h.some(Ne),n.__h.some(nt),n.__h=[],ue=0)),ze=M},O.diffed=function(t){Et&&Et(t);var n=t.__c;n&&n.__H&&(n.__H.__h.length&&(rn.push(n)!==1&&At===O.requestAnimationFrame||((At=O.requestAnimationFrame)||Gn)(jn)),n.__H.__.some(function(r){r.u&&(r.__H=r.u,r.u=void 0)})),ze=M=null},O.__c=function(t,n){n.some(function(r){try{r.__h.some(Ne),r.__h=r.__h.filter(function(o){return!o.__||nt(o)})}catch(o){n.some(function(a){a.__h&&(a.__h=[])}),n=[],O.__e(o,r.__v)}}),Pt&&Pt(t,n)},O.unmount=function(t){Dt&&Dt(t);var n,r=t.__c;r&&r.__H&&(r.__H.__.some(function(o){try{Ne(o)}catch(a){n=a}}),r.__H=void 0,n&&O.__e(n,r.__v))};var Nt=typeof requestAnimationFrame=="function";function Gn(t){var n,r=function(){clearTimeout(o),Nt&&cancelAnimationFrame(n),setTimeout(t)},o=setTimeout(r,35);Nt&&(n=requestAnimationFrame(r))}function Ne(t){var n=M,r=t.__c;typeof r=="function"&&(t.__c=void 0,r()),M=n}function nt(t){var n=M;t.__c=t.__(),M=n}function on(t,n){return!t||t.length!==n.length||n.some(function(r,o){return r!==t[o]})}function sn(t,n){return typeof n=="function"?n(t):n}class I extends String{__apiType;value;__meta__;constructor(n,r){super(n),this.value=n,this.__meta__=r}toString(){return this.value}}new I(`
    fragment RunRow on AgentRun {
  id
  status
  input
  output
  steps
  startedAt
  finishedAt
  model
  promptTokens
  completionTokens
  error {
    code
    message
  }
  toolCalls {
    id
    toolId
    status
    latencyMs
    arguments
    error {
      code
      message
    }
  }
}
    `,{fragmentName:"RunRow"});new I(`
    fragment PendingApproval on ToolCall {
  id
  toolId
  arguments
  tool {
    id
    name
    label
  }
  agent {
    id
    name
  }
  run {
    id
    status
  }
  approval {
    requestedAt
    expiresAt
  }
}
    `,{fragmentName:"PendingApproval"});new I(`
    fragment CallRow on ToolCall {
  id
  toolId
  status
  latencyMs
  attempts
  traceId
  startedAt
  idempotencyKey
  arguments
  result
  error {
    code
    message
    detail
  }
  space {
    id
    name
  }
  agent {
    id
    name
  }
  run {
    id
  }
}
    `,{fragmentName:"CallRow"});new I(`
    fragment ToolRow on Tool {
  id
  name
  label
  type
  status
  isGlobal
  sideEffect
  driftedAt
  boundSpaces {
    id
    name
  }
  mcpServer {
    id
    name
  }
}
    `,{fragmentName:"ToolRow"});const Wn=new I(`
    query Agents($first: Int!, $after: String) {
  agents(first: $first, after: $after) {
    totalCount
    pageInfo {
      hasNextPage
      endCursor
    }
    edges {
      node {
        id
        name
        model
        status
        updatedAt
        space {
          id
          name
        }
      }
    }
  }
}
    `),zn=new I(`
    query AgentDetail($id: ID!) {
  agent(id: $id) {
    id
    name
    model
    systemPrompt
    maxSteps
    outputFormat
    status
    boundSkillReferences
    space {
      id
      name
    }
    mountedKnowledgeBases {
      id
      name
    }
    activatedTools {
      id
      name
    }
    runs(first: 50) {
      totalCount
      edges {
        node {
          ...RunRow
        }
      }
    }
  }
}
    fragment RunRow on AgentRun {
  id
  status
  input
  output
  steps
  startedAt
  finishedAt
  model
  promptTokens
  completionTokens
  error {
    code
    message
  }
  toolCalls {
    id
    toolId
    status
    latencyMs
    arguments
    error {
      code
      message
    }
  }
}`),Jn=new I(`
    query AgentChoices($spaceId: ID!) {
  space(id: $spaceId) {
    id
    visibleTools(first: 100) {
      edges {
        node {
          id
          name
          label
        }
      }
    }
    skills(first: 100) {
      edges {
        node {
          id
          name
          label
          version
        }
      }
    }
    knowledgeBases(first: 100) {
      edges {
        node {
          id
          name
          label
        }
      }
    }
  }
}
    `),Zn=new I(`
    mutation CreateAgent($input: CreateAgentInput!) {
  createAgent(input: $input) {
    agent {
      id
    }
    notices
    userErrors {
      field
      code
      message
    }
  }
}
    `),Qn=new I(`
    mutation UpdateAgent($input: UpdateAgentInput!) {
  updateAgent(input: $input) {
    agent {
      id
    }
    notices
    userErrors {
      field
      code
      message
    }
  }
}
    `),Yn=new I(`
    query PreviewPrompt($agentId: ID!, $message: String!) {
  previewPrompt(agentId: $agentId, message: $message) {
    tokenEstimate
    budgetChars
    charCount
    warnings
    sections {
      kind
      source
      text
      truncated
      reason
    }
  }
}
    `),Xn=new I(`
    mutation InvokeAgent($input: InvokeAgentInput!) {
  invokeAgent(input: $input) {
    run {
      ...RunRow
    }
    userErrors {
      field
      code
      message
    }
  }
}
    fragment RunRow on AgentRun {
  id
  status
  input
  output
  steps
  startedAt
  finishedAt
  model
  promptTokens
  completionTokens
  error {
    code
    message
  }
  toolCalls {
    id
    toolId
    status
    latencyMs
    arguments
    error {
      code
      message
    }
  }
}`),er=new I(`
    subscription AgentRunEvents($runId: ID!) {
  agentRunEvents(runId: $runId) {
    kind
    at
    delta
    toolId
    step
    toolCall {
      id
      toolId
      status
      latencyMs
      error {
        code
        message
      }
    }
    run {
      id
      status
      output
      steps
      error {
        code
        message
      }
    }
  }
}
    `),tr=new I(`
    query AgentRun($id: ID!) {
  agentRun(id: $id) {
    ...RunRow
  }
}
    fragment RunRow on AgentRun {
  id
  status
  input
  output
  steps
  startedAt
  finishedAt
  model
  promptTokens
  completionTokens
  error {
    code
    message
  }
  toolCalls {
    id
    toolId
    status
    latencyMs
    arguments
    error {
      code
      message
    }
  }
}`),nr=new I(`
    query ApiKeys($first: Int!, $after: String, $state: ApiKeyState) {
  apiKeys(first: $first, after: $after, state: $state) {
    totalCount
    pageInfo {
      hasNextPage
      endCursor
    }
    edges {
      node {
        id
        label
        role
        createdAt
        expiresAt
        revokedAt
        lastUsedAt
        state
        space {
          id
          name
        }
      }
    }
  }
}
    `),rr=new I(`
    mutation CreateApiKey($input: CreateApiKeyInput!) {
  createApiKey(input: $input) {
    apiKey {
      id
    }
    secret
    userErrors {
      field
      code
      message
    }
  }
}
    `),or=new I(`
    mutation RevokeApiKey($input: RevokeApiKeyInput!) {
  revokeApiKey(input: $input) {
    apiKey {
      id
      state
    }
    userErrors {
      field
      code
      message
    }
  }
}
    `),sr=new I(`
    query PendingApprovals($spaceId: ID!, $first: Int!, $after: String) {
  pendingApprovals(spaceId: $spaceId, first: $first, after: $after) {
    totalCount
    pageInfo {
      hasNextPage
      endCursor
    }
    edges {
      node {
        ...PendingApproval
      }
    }
  }
}
    fragment PendingApproval on ToolCall {
  id
  toolId
  arguments
  tool {
    id
    name
    label
  }
  agent {
    id
    name
  }
  run {
    id
    status
  }
  approval {
    requestedAt
    expiresAt
  }
}`),ar=new I(`
    query PendingApprovalCount($spaceId: ID!) {
  pendingApprovals(spaceId: $spaceId, first: 1) {
    totalCount
  }
}
    `),lr=new I(`
    mutation ApproveToolCall($input: ApproveToolCallInput!) {
  approveToolCall(input: $input) {
    toolCall {
      id
      status
      approval {
        decision
        comment
      }
    }
    run {
      id
      status
    }
    userErrors {
      field
      code
      message
    }
  }
}
    `),ir=new I(`
    mutation RejectToolCall($input: RejectToolCallInput!) {
  rejectToolCall(input: $input) {
    toolCall {
      id
      status
      approval {
        decision
        comment
      }
    }
    run {
      id
      status
    }
    userErrors {
      field
      code
      message
    }
  }
}
    `),cr=new I(`
    subscription LiveToolCalls($filter: ToolCallFilter) {
  toolCalls(filter: $filter) {
    ...CallRow
  }
}
    fragment CallRow on ToolCall {
  id
  toolId
  status
  latencyMs
  attempts
  traceId
  startedAt
  idempotencyKey
  arguments
  result
  error {
    code
    message
    detail
  }
  space {
    id
    name
  }
  agent {
    id
    name
  }
  run {
    id
  }
}`);new I(`
    query RecentToolCalls($filter: ToolCallFilter, $first: Int!, $after: String) {
  toolCalls(filter: $filter, first: $first, after: $after) {
    totalCount
    pageInfo {
      hasNextPage
      endCursor
    }
    edges {
      node {
        ...CallRow
      }
    }
  }
}
    fragment CallRow on ToolCall {
  id
  toolId
  status
  latencyMs
  attempts
  traceId
  startedAt
  idempotencyKey
  arguments
  result
  error {
    code
    message
    detail
  }
  space {
    id
    name
  }
  agent {
    id
    name
  }
  run {
    id
  }
}`);const an=new I(`
    query KnowledgeBases($first: Int!, $after: String) {
  knowledgeBases(first: $first, after: $after) {
    totalCount
    pageInfo {
      hasNextPage
      endCursor
    }
    edges {
      node {
        id
        name
        label
        description
        documentCount
        createdAt
        space {
          id
          name
        }
      }
    }
  }
}
    `),dr=new I(`
    query KnowledgeBaseDocuments($id: ID!) {
  node(id: $id) {
    id
    ... on KnowledgeBase {
      documents(first: 100) {
        totalCount
        edges {
          node {
            id
            title
            source
            chunkCount
            createdAt
          }
        }
      }
    }
  }
}
    `),ur=new I(`
    mutation CreateKnowledgeBase($input: CreateKnowledgeBaseInput!) {
  createKnowledgeBase(input: $input) {
    knowledgeBase {
      id
    }
    userErrors {
      field
      code
      message
    }
  }
}
    `),pr=new I(`
    mutation AddDocument($input: AddDocumentInput!) {
  addDocument(input: $input) {
    document {
      id
      title
      chunkCount
    }
    outcome
    userErrors {
      field
      code
      message
    }
  }
}
    `),hr=new I(`
    query SearchKnowledge($spaceId: ID!, $query: String!, $knowledgeBaseIds: [ID!], $topK: Int) {
  searchKnowledge(
    spaceId: $spaceId
    query: $query
    knowledgeBaseIds: $knowledgeBaseIds
    topK: $topK
  ) {
    text
    score
    headingPath
    chunkIndex
    source
    knowledgeBaseId
    document {
      id
      title
    }
  }
}
    `),mr=new I(`
    query McpServers($first: Int!, $after: String) {
  mcpServers(first: $first, after: $after) {
    totalCount
    pageInfo {
      hasNextPage
      endCursor
    }
    edges {
      node {
        id
        name
        url
        command
        transport
        status
        authType
        lastSyncedAt
        lastError
        createdAt
        isGlobal
        boundSpaces {
          id
          name
        }
      }
    }
  }
}
    `),fr=new I(`
    query McpServerTools($id: ID!, $after: String) {
  node(id: $id) {
    ... on McpServer {
      id
      tools(first: 100, after: $after) {
        totalCount
        pageInfo {
          hasNextPage
          endCursor
        }
        edges {
          node {
            id
            name
            label
            status
            driftedAt
          }
        }
      }
    }
  }
}
    `),gr=new I(`
    mutation RegisterMcpServer($input: RegisterMcpServerInput!) {
  registerMcpServer(input: $input) {
    mcpServer {
      id
    }
    userErrors {
      field
      code
      message
    }
  }
}
    `),br=new I(`
    mutation SyncMcpServer($id: ID!) {
  syncMcpServer(id: $id) {
    mcpServer {
      id
      lastSyncedAt
      lastError
    }
    syncReport {
      pages
      added
      updated
      unchanged
      vanished
      disabled
      drifted
      reactivated
      skipped
    }
    userErrors {
      field
      code
      message
    }
  }
}
    `),_r=new I(`
    query Skills($first: Int!, $after: String, $filter: SkillFilter) {
  skills(first: $first, after: $after, filter: $filter) {
    totalCount
    pageInfo {
      hasNextPage
      endCursor
    }
    edges {
      node {
        id
        name
        label
        type
        status
        version
        candidateVersion
        canaryPercent
        space {
          id
          name
        }
      }
    }
  }
}
    `),yr=new I(`
    query SkillDetail($id: ID!) {
  skill(id: $id) {
    id
    name
    label
    description
    prompt
    category
    tags
    triggerHints
    boundary
    toolIds
    type
    status
    version
    charCount
    createdAt
    updatedAt
    canaryPercent
    candidateVersion
    space {
      id
      name
    }
    versions {
      version
      channel
      prompt
      createdAt
    }
    channelHistory {
      action
      channel
      fromVersion
      toVersion
      canaryPercent
      actor
      at
    }
  }
}
    `),vr=new I(`
    query SkillMd($id: ID!, $version: String) {
  skill(id: $id) {
    id
    name
    skillMd(version: $version)
  }
}
    `),Sr=new I(`
    mutation CreateSkill($input: CreateSkillInput!) {
  createSkill(input: $input) {
    skill {
      id
    }
    userErrors {
      field
      code
      message
    }
  }
}
    `),wr=new I(`
    mutation PublishSkillVersion($input: PublishSkillVersionInput!) {
  publishSkillVersion(input: $input) {
    skillVersion {
      version
      channel
    }
    userErrors {
      field
      code
      message
    }
  }
}
    `),Ir=new I(`
    mutation PromoteSkillCandidate($input: PromoteSkillCandidateInput!) {
  promoteSkillCandidate(input: $input) {
    skill {
      id
      version
    }
    userErrors {
      field
      code
      message
    }
  }
}
    `),Cr=new I(`
    mutation RollbackSkill($input: RollbackSkillInput!) {
  rollbackSkill(input: $input) {
    skill {
      id
      version
    }
    userErrors {
      field
      code
      message
    }
  }
}
    `),kr=new I(`
    mutation SetSkillCanary($input: SetSkillCanaryInput!) {
  setSkillCanary(input: $input) {
    skill {
      id
      canaryPercent
    }
    userErrors {
      field
      code
      message
    }
  }
}
    `),Ar=new I(`
    mutation ImportSkill($input: ImportSkillInput!) {
  importSkill(input: $input) {
    skill {
      id
    }
    isCreated
    userErrors {
      field
      code
      message
    }
  }
}
    `),$r=new I(`
    query MatchSkills($spaceId: ID!, $query: String!, $topK: Int) {
  matchSkills(spaceId: $spaceId, query: $query, topK: $topK) {
    score
    reason
    lexicalScore
    semanticScore
    boundaryFactor
    skill {
      id
      name
      label
    }
  }
}
    `),Tr=new I(`
    query Spaces($first: Int!, $after: String) {
  spaces(first: $first, after: $after) {
    totalCount
    pageInfo {
      hasNextPage
      endCursor
    }
    edges {
      node {
        id
        name
        label
        isSystem
        createdAt
      }
    }
  }
}
    `),Er=new I(`
    query SpaceDetail($id: ID!) {
  space(id: $id) {
    id
    name
    label
    isSystem
    createdAt
    visibleTools(first: 100) {
      totalCount
      edges {
        node {
          id
          name
          label
          type
          isGlobal
        }
      }
    }
    skills(first: 100) {
      totalCount
      edges {
        node {
          id
          name
          label
          version
          space {
            id
          }
        }
      }
    }
    knowledgeBases(first: 100) {
      totalCount
      edges {
        node {
          id
          name
          label
          documentCount
        }
      }
    }
    agents(first: 100) {
      totalCount
      edges {
        node {
          id
          name
          model
          status
        }
      }
    }
  }
}
    `),Pr=new I(`
    mutation CreateSpace($input: CreateSpaceInput!) {
  createSpace(input: $input) {
    space {
      id
      name
      label
    }
    userErrors {
      field
      code
      message
    }
  }
}
    `),Dr=new I(`
    query Tools($first: Int!, $after: String, $filter: ToolFilter) {
  tools(first: $first, after: $after, filter: $filter) {
    totalCount
    pageInfo {
      hasNextPage
      endCursor
    }
    edges {
      node {
        ...ToolRow
      }
    }
  }
}
    fragment ToolRow on Tool {
  id
  name
  label
  type
  status
  isGlobal
  sideEffect
  driftedAt
  boundSpaces {
    id
    name
  }
  mcpServer {
    id
    name
  }
}`),Rr=new I(`
    query SpaceTools($spaceId: ID!, $first: Int!, $after: String, $filter: ToolFilter) {
  space(id: $spaceId) {
    id
    visibleTools(
      first: $first
      after: $after
      filter: $filter
      includeInactive: true
    ) {
      totalCount
      pageInfo {
        hasNextPage
        endCursor
      }
      edges {
        node {
          ...ToolRow
        }
      }
    }
  }
}
    fragment ToolRow on Tool {
  id
  name
  label
  type
  status
  isGlobal
  sideEffect
  driftedAt
  boundSpaces {
    id
    name
  }
  mcpServer {
    id
    name
  }
}`),ln=new I(`
    query ToolDetail($id: ID!) {
  tool(id: $id) {
    id
    name
    label
    description
    inputSchema
    outputSchema
    type
    status
    endpoint
    authType
    viewerCanManage
    sideEffect
    timeoutMs
    maxRetries
    tags
    group
    allowedRoles
    version
    owner
    createdAt
    updatedAt
    driftedAt
    isGlobal
    boundSpaces {
      id
      name
      label
    }
    mcpServer {
      id
      name
      isGlobal
      boundSpaces {
        id
        name
        label
      }
    }
    stats {
      calls
      failures
      failuresByCode
      p50LatencyMs
      p95LatencyMs
      lastCalledAt
    }
  }
}
    `),Nr=new I(`
    mutation CreateTool($input: CreateToolInput!) {
  createTool(input: $input) {
    tool {
      id
    }
    userErrors {
      field
      code
      message
    }
  }
}
    `),xr=new I(`
    mutation UpdateTool($input: UpdateToolInput!) {
  updateTool(input: $input) {
    tool {
      id
    }
    userErrors {
      field
      code
      message
    }
  }
}
    `),Lr=new I(`
    mutation SetSpaceBindings($input: SetBindingsInput!) {
  setSpaceBindings(input: $input) {
    tool {
      id
      isGlobal
      boundSpaces {
        id
      }
    }
    mcpServer {
      id
      isGlobal
      boundSpaces {
        id
      }
    }
    userErrors {
      field
      code
      message
    }
  }
}
    `),pt=new I(`
    mutation SetStatus($input: SetStatusInput!) {
  setStatus(input: $input) {
    node {
      id
    }
    userErrors {
      field
      code
      message
    }
  }
}
    `),Mr=new I(`
    mutation InvokeTool($input: InvokeToolInput!) {
  invokeTool(input: $input) {
    status
    data
    traceId
    latencyMs
    error {
      code
      message
      detail
    }
  }
}
    `),cn=new I(`
    query Viewer {
  viewer {
    role
    keyId
    keyLabel
    space {
      id
      name
      label
    }
  }
}
    `),qr=new I(`
    query SpaceOptions {
  spaces(first: 100) {
    edges {
      node {
        id
        name
        label
        isSystem
      }
    }
  }
}
    `),rt="/console";function re(t,{replace:n=!1}={}){n?window.history.replaceState(null,"",t):window.history.pushState(null,"",t),window.dispatchEvent(new PopStateEvent("popstate"))}function dn(){const[t,n]=m(xt);return N(()=>{const r=()=>n(xt());return window.addEventListener("popstate",r),()=>window.removeEventListener("popstate",r)},[]),t}function xt(){const t=window.location.pathname;return(t.startsWith(rt)?t.slice(rt.length):t).replace(/\/+$/,"")}function ht(t){return dn(),new URLSearchParams(window.location.search).get(t)}function X(t){return`${rt}${t}`}function A({to:t,children:n,...r}){return e("a",{...r,href:X(t),onClick:o=>{o.defaultPrevented||o.button!==0||o.metaKey||o.ctrlKey||o.shiftKey||(o.preventDefault(),re(X(t)))},children:n})}const Ur=4e3;function Br(t){const n=t.role,r=t.space?.id??null;return{admin:n==="ADMIN",manageSome:n==="ADMIN"||n==="SPACE_ADMIN",invoke:n!=="VIEWER",manage:o=>n==="ADMIN"||n==="SPACE_ADMIN"&&o!=null&&o===r}}const un=On(null);function k(){const t=Fn(un);if(t===null)throw new Error("useSession outside a signed-in console");return t}function H(t,n){const[r,o]=m({data:null,error:null,loading:!0}),[a,s]=m(0);N(()=>{let c=!0;return o(d=>({...d,loading:!0})),t().then(d=>c&&o({data:d,error:null,loading:!1}),d=>{c&&!(d instanceof lt)&&o(i=>({...i,error:ee(d),loading:!1}))}),()=>{c=!1}},[...n,a]);const l=qe(()=>s(c=>c+1),[]);return{...r,reload:l}}function ee(t){return t instanceof Error?t.message:String(t)}function K(){const[t,n]=m(!1),[r,o]=m([]),a=qe(async s=>{n(!0),o([]);try{const l=await s();return o(l.userErrors),l.userErrors.length===0?l:null}catch(l){return l instanceof lt||o([{field:null,code:"ERROR",message:ee(l)}]),null}finally{n(!1)}},[]);return{busy:t,errors:r,setErrors:o,run:a}}function He(t,n){const r=n.split(".");return t.filter(o=>{const a=o.field??[];return a.length>=r.length&&r.every((s,l)=>a[a.length-r.length+l]===s)})}function Q({errors:t,fields:n}){const r=t.filter(o=>n.every(a=>!He([o],a).length));return r.length?e("div",{class:"form-errors",role:"alert",children:r.map((o,a)=>e("p",{children:[o.message," ",e("span",{class:"code",children:o.code})]},a))}):null}function ie({label:t,wide:n=!1,noValidate:r=!1,onSubmit:o,mutation:a,fields:s,submitLabel:l,cancel:c,notice:d,children:i}){return e("form",{class:n?"card form wide":"card form",onSubmit:o,"aria-label":t,noValidate:r,children:[i,e(Q,{errors:a.errors,fields:s}),d,e("div",{class:"buttons",children:[e("button",{type:"submit",class:"primary",disabled:a.busy,children:l}),typeof c=="string"?e(A,{class:"button",to:c,children:"Cancel"}):e("button",{type:"button",onClick:c,children:"Cancel"})]})]})}function ke({label:t,name:n,errors:r=[],hint:o,children:a}){const s=Hn(),l=He(r,n),c=[o?`${s}-hint`:"",l.length?`${s}-error`:""].filter(Boolean).join(" ");return e("div",{class:`field${l.length?" invalid":""}`,children:[e("label",{for:s,children:t}),a({id:s,"aria-invalid":l.length>0,"aria-describedby":c||void 0}),o&&e("p",{class:"hint",id:`${s}-hint`,children:o}),l.length>0&&e("p",{class:"field-error",id:`${s}-error`,role:"alert",children:l.map(d=>d.message).join(" ")})]})}function C({label:t,name:n,value:r,onInput:o,errors:a,hint:s,type:l="text",...c}){return e(ke,{label:t,name:n,errors:a,hint:s,children:d=>e("input",{...d,...c,name:n,type:l,value:r,onInput:i=>o(i.currentTarget.value)})})}function Y({label:t,name:n,value:r,onInput:o,errors:a,hint:s,rows:l=6,mono:c=!1}){return e(ke,{label:t,name:n,errors:a,hint:s,children:d=>e("textarea",{...d,class:c?"mono":void 0,name:n,rows:l,value:r,spellcheck:!c,onInput:i=>o(i.currentTarget.value)})})}function q({label:t,name:n,value:r,options:o,onChange:a,errors:s,hint:l}){return e(ke,{label:t,name:n,errors:s,hint:l,children:c=>e("select",{...c,name:n,value:o.some(([d])=>d===r)?r:o[0]?.[0],onChange:d=>a(d.currentTarget.value),children:o.map(([d,i])=>e("option",{value:d,children:i},d))})})}function pe({legend:t,options:n,selected:r,onChange:o,errors:a=[],name:s}){const l=He(a,s);return e("fieldset",{class:"checkbox-group",children:[e("legend",{children:t}),n.length===0&&e("p",{class:"hint",children:"Nothing to choose from."}),n.map(c=>e("label",{class:"check",children:[e("input",{type:"checkbox",checked:r.includes(c.value),onChange:d=>o(d.currentTarget.checked?[...r,c.value]:r.filter(i=>i!==c.value))}),c.label]},c.value)),l.length>0&&e("p",{class:"field-error",role:"alert",children:l.map(c=>c.message).join(" ")})]})}function Ue(t){if(!t.trim())return{value:null,problem:null};try{return{value:JSON.parse(t),problem:null}}catch(n){return{value:null,problem:`Not valid JSON: ${ee(n)}`}}}function Be(t){return JSON.stringify(t,null,2)}function he({value:t,label:n}){return e("pre",{class:"json","aria-label":n,tabIndex:0,children:t==null?"—":Be(t)})}let Lt=!0;function x({title:t,children:n}){const r=Fe(null);return N(()=>{if(Lt){Lt=!1;return}r.current?.focus({preventScroll:!0})},[t]),e("header",{class:"page-header",children:[e("h1",{tabIndex:-1,ref:r,children:t}),n&&e("div",{class:"actions",children:n})]})}function G({error:t,retry:n}){return t?e("div",{class:"form-errors",role:"alert",children:[e("p",{children:t}),n&&e("button",{type:"button",onClick:n,children:"Try again"})]}):null}function be({children:t}){return e("div",{class:"notice",role:"status",children:t})}function $({children:t,tone:n="plain"}){return e("span",{class:`badge ${n}`,children:t})}function j(t){return t==="ACTIVE"||t==="SUCCESS"||t==="SUCCEEDED"||t==="PRODUCTION"?"good":t==="DISABLED"||t==="FAILED"||t==="MAX_STEPS"?"bad":t==="RUNNING"||t==="CANDIDATE"||t==="QUEUED"||t==="WAITING_APPROVAL"||t==="PENDING_APPROVAL"||t==="PENDING"?"busy":"plain"}function V(t){if(!t)return"—";const n=new Date(t);return Number.isNaN(n.getTime())?t:n.toLocaleString()}function me(t){return t==null?"—":`${t<10?t.toFixed(1):Math.round(t)} ms`}function oe(t){const[n,r]=m([null]);return N(()=>r([null]),[t]),{after:n[n.length-1],page:n.length,next:a=>a&&r(s=>[...s,a]),previous:()=>r(a=>a.length>1?a.slice(0,-1):a)}}function se({label:t,page:n,pageSize:r,shown:o,total:a,hasNext:s,onNext:l,onPrevious:c}){const d=a===0?0:(n-1)*r+1;return e("nav",{class:"pager","aria-label":`${t} pages`,children:[e("button",{type:"button",onClick:c,disabled:n<=1,children:"Previous page"}),e("span",{"aria-live":"polite",children:[d,"–",d+o-(o?1:0)," of ",a.toLocaleString()]}),e("button",{type:"button",onClick:l,disabled:!s,children:"Next page"})]})}const Je=50,Or=["ADMIN","SPACE_ADMIN","MEMBER","VIEWER"];function Kr({sub:t}){if(t==="new")return e(pn,{tool:null});const[n,r]=t.split("/");return n&&r==="edit"?e(Qr,{id:decodeURIComponent(n)}):n?e(Gr,{id:decodeURIComponent(n)}):e(Fr,{})}function Z(){const{api:t}=k();return H(async()=>(await t.request(qr,{})).spaces.edges.map(({node:n})=>n),[])}function Vr(t,n){const[r,o]=m(t);return N(()=>{const a=window.setTimeout(()=>o(t),n);return()=>window.clearTimeout(a)},[t,n]),r}function Se(t){const[n,r]=m(ht(t)??"");return[n,a=>{r(a);const s=new URLSearchParams(window.location.search);a?s.set(t,a):s.delete(t);const l=s.toString();window.history.replaceState(null,"",`${window.location.pathname}${l?`?${l}`:""}`)}]}function Fr(){const{api:t,can:n}=k(),r=Z(),[o,a]=Se("search"),[s,l]=Se("type"),[c,d]=Se("status"),[i,p]=Se("binding"),[h,u]=Se("space"),b={search:Vr(o.trim(),250)||null,type:s||null,status:c||null,isGlobal:i===""?null:i==="global"},v=JSON.stringify([b,h]),y=oe(v),_=H(async()=>{if(h){const w=await t.request(Rr,{spaceId:h,first:Je,after:y.after,filter:b});if(!w.space)throw new Error(`Space ${h} is not visible to this key.`);return w.space.visibleTools}return(await t.request(Dr,{first:Je,after:y.after,filter:b})).tools},[v,y.after]),g=_.data;return e(S,{children:[e(x,{title:"Tools",children:n.manageSome&&e(A,{class:"button primary",to:"/tools/new",children:"Create tool"})}),e("form",{class:"filters",role:"search","aria-label":"Filter tools",onSubmit:w=>w.preventDefault(),children:[e(C,{label:"Search",name:"search",value:o,onInput:a,placeholder:"name, label or description"}),e(q,{label:"Type",name:"type",value:s,onChange:l,options:[["","Any type"],["BUILTIN","Builtin"],["CUSTOM","Custom (HTTP)"],["MCP","MCP"]]}),e(q,{label:"Status",name:"status",value:c,onChange:d,options:[["","Any status"],["ACTIVE","Active"],["DISABLED","Disabled"],["ARCHIVED","Archived"]]}),e(q,{label:"Space",name:"space",value:h,onChange:u,options:[["",n.admin?"Every space":"My space"],...(r.data??[]).map(w=>[w.id,w.label])],hint:h?"Tools visible in this space.":void 0}),e(q,{label:"Binding",name:"scope",value:i,onChange:p,options:[["","Global and bound"],["global","Global only"],["bound","Bound only"]]})]}),e(G,{error:_.error,retry:_.reload}),g&&e("div",{"aria-busy":_.loading,children:[e("table",{class:"tools",children:[e("caption",{class:"sr-only",children:"Tools"}),e("thead",{children:e("tr",{children:[e("th",{scope:"col",children:"Name"}),e("th",{scope:"col",children:"Label"}),e("th",{scope:"col",children:"Type"}),e("th",{scope:"col",children:"Status"}),e("th",{scope:"col",children:"Visible in"})]})}),e("tbody",{children:g.edges.map(({node:w})=>e(Hr,{tool:w},w.id))})]}),g.edges.length===0&&e("p",{class:"empty",children:"No tool matches."}),e(se,{label:"Tools",page:y.page,pageSize:Je,shown:g.edges.length,total:g.totalCount,hasNext:g.pageInfo.hasNextPage,onNext:()=>y.next(g.pageInfo.endCursor),onPrevious:y.previous})]})]})}function Hr({tool:t}){return e("tr",{children:[e("td",{children:[e(A,{to:`/tools/${encodeURIComponent(t.id)}`,children:t.name}),t.driftedAt&&e(S,{children:[" ",e($,{tone:"bad",children:"drifted"})]})]}),e("td",{children:t.label}),e("td",{children:e($,{children:t.type})}),e("td",{children:e($,{tone:j(t.status),children:t.status})}),e("td",{children:jr(t)})]})}function jr(t){if(t.isGlobal)return t.mcpServer?"every space (server is global)":"every space (global)";const n=t.boundSpaces.map(r=>r.name).join(", ");return t.mcpServer?`spaces of server ${t.mcpServer.name}`:n||"bound"}function Gr({id:t}){const{api:n}=k(),r=H(()=>n.request(ln,{id:t}),[t]),o=r.data?.tool,a=new URLSearchParams(window.location.search).get("saved");return r.data&&!o?e(S,{children:[e(x,{title:"Tool not found"}),e("p",{children:["No tool ",e("code",{children:t})," is visible to this key. ",e(A,{to:"/tools",children:"Back to Tools"})]})]}):e(S,{children:[e(x,{title:o?`Tool ${o.name}`:"Tool",children:[e(A,{class:"button",to:"/tools",children:"All tools"}),o?.type==="CUSTOM"&&o.viewerCanManage&&e(A,{class:"button",to:`/tools/${encodeURIComponent(o.id)}/edit`,children:"Edit tool"})]}),e(G,{error:r.error,retry:r.reload}),a&&e(be,{children:["Tool ",a==="created"?"created":"saved","."]}),o&&e(S,{children:[e(zr,{tool:o,onChanged:r.reload}),e("section",{"aria-labelledby":"tool-definition",children:[e("h2",{id:"tool-definition",children:"Definition"}),e("dl",{class:"facts",children:[e("dt",{children:"Label"}),e("dd",{children:o.label}),e("dt",{children:"Id"}),e("dd",{children:e("code",{children:o.id})}),e("dt",{children:"Type"}),e("dd",{children:o.type}),e("dt",{children:"Description"}),e("dd",{class:"prose",children:o.description}),o.endpoint&&e(S,{children:[e("dt",{children:"Endpoint"}),e("dd",{children:e("code",{children:o.endpoint})})]}),e("dt",{children:"Credentials"}),e("dd",{children:o.authType==="NONE"?"none":`${o.authType} (secret stored, never shown)`}),e("dt",{children:"Side effect"}),e("dd",{children:o.sideEffect}),e("dt",{children:"Version"}),e("dd",{children:o.version}),e("dt",{children:"Owner"}),e("dd",{children:o.owner??"—"}),e("dt",{children:"Tags"}),e("dd",{children:o.tags.length?o.tags.join(", "):"—"}),e("dt",{children:"Group"}),e("dd",{children:o.group??"—"}),o.driftedAt&&e(S,{children:[e("dt",{children:"Drift"}),e("dd",{children:[e($,{tone:"bad",children:"drifted"})," the MCP server changed its description or schema on ",V(o.driftedAt),". Re-activating the tool accepts the change."]})]})]})]}),e("section",{"aria-labelledby":"tool-policies",children:[e("h2",{id:"tool-policies",children:"Policies"}),e("dl",{class:"facts",children:[e("dt",{children:"Timeout"}),e("dd",{children:[o.timeoutMs.toLocaleString()," ms per attempt"]}),e("dt",{children:"Retries"}),e("dd",{children:[o.maxRetries," ",o.sideEffect==="WRITE"?"(only with an idempotency key)":""]}),e("dt",{children:"Allowed roles"}),e("dd",{children:o.allowedRoles.length?o.allowedRoles.join(", "):"every role"})]})]}),e(Jr,{tool:o,onChanged:r.reload}),e("section",{"aria-labelledby":"tool-stats",children:[e("h2",{id:"tool-stats",children:"Calls"}),e("dl",{class:"facts",children:[e("dt",{children:"Calls"}),e("dd",{children:o.stats.calls.toLocaleString()}),e("dt",{children:"Failures"}),e("dd",{children:o.stats.failures.toLocaleString()}),e("dt",{children:"p50 latency"}),e("dd",{children:me(o.stats.p50LatencyMs)}),e("dt",{children:"p95 latency"}),e("dd",{children:me(o.stats.p95LatencyMs)}),e("dt",{children:"Last call"}),e("dd",{children:V(o.stats.lastCalledAt)})]}),e(Wr,{value:o.stats.failuresByCode})]}),e("section",{"aria-labelledby":"tool-schemas",children:[e("h2",{id:"tool-schemas",children:"Schemas"}),e("h3",{children:"Input schema"}),e(he,{label:"Input schema",value:o.inputSchema}),e("h3",{children:"Output schema"}),e(he,{label:"Output schema",value:o.outputSchema})]}),e(Zr,{tool:o})]})]})}function Wr({value:t}){const n=t&&typeof t=="object"?Object.entries(t):[];return n.length?e("table",{class:"compact",children:[e("caption",{children:"Failures by code"}),e("thead",{children:e("tr",{children:[e("th",{scope:"col",children:"Code"}),e("th",{scope:"col",children:"Failures"})]})}),e("tbody",{children:n.map(([r,o])=>e("tr",{children:[e("td",{children:e("code",{children:r})}),e("td",{children:o})]},r))})]}):e("p",{class:"muted",children:"No failures."})}function zr({tool:t,onChanged:n}){const{api:r}=k(),o=K(),a=async s=>{await o.run(async()=>(await r.request(pt,{input:{id:t.id,status:s}})).setStatus)&&n()};return e("div",{class:"status-line",children:[e("span",{children:["Status ",e($,{tone:j(t.status),children:t.status})]}),t.viewerCanManage&&t.status!=="ACTIVE"&&e("button",{type:"button",onClick:()=>a("ACTIVE"),disabled:o.busy,children:t.driftedAt?"Re-activate tool":"Enable tool"}),t.viewerCanManage&&t.status==="ACTIVE"&&e("button",{type:"button",onClick:()=>a("DISABLED"),disabled:o.busy,children:"Disable tool"}),e(Q,{errors:o.errors,fields:[]})]})}function Jr({tool:t,onChanged:n}){const{api:r,can:o}=k(),a=Z(),s=t.mcpServer,l=(s?s.boundSpaces:t.boundSpaces).map(v=>v.id),[c,d]=m(l);N(()=>d(l),[l.join(",")]);const i=K(),[p,h]=m(!1),u=s?s.isGlobal:t.isGlobal,f=async v=>{v.preventDefault(),h(!1),await i.run(async()=>(await r.request(Lr,{input:{id:s?s.id:t.id,spaceIds:c}})).setSpaceBindings)&&(h(!0),n())},b=(s?s.boundSpaces:t.boundSpaces).map(v=>v.label).join(", ");return e("section",{"aria-labelledby":"tool-bindings",children:[e("h2",{id:"tool-bindings",children:"Bindings"}),e("p",{children:[u?e(S,{children:[e($,{children:"global"})," no binding row: every space sees this tool"]}):e(S,{children:[e($,{tone:"busy",children:"bound"})," only these spaces see it: ",b]}),s&&e(S,{children:[" ","— inherited from MCP server ",e("strong",{children:s.name})]}),"."]}),o.admin&&e("form",{class:"card form",onSubmit:f,"aria-label":s?`Bindings of MCP server ${s.name}`:"Bindings",children:[e(pe,{legend:s?`Spaces bound to MCP server ${s.name}`:"Bound spaces (none checked: global)",name:"spaceIds",options:(a.data??[]).map(v=>({value:v.id,label:`${v.label} (${v.name})`})),selected:c,onChange:d,errors:i.errors}),e(Q,{errors:i.errors,fields:["spaceIds"]}),e("div",{class:"buttons",children:[e("button",{type:"submit",disabled:i.busy,children:"Save bindings"}),p&&e("span",{role:"status",children:"Bindings saved."})]})]})]})}function Zr({tool:t}){const{api:n,can:r,viewer:o}=k(),a=Z(),[s,l]=m(o.space?.id??""),[c,d]=m("{}"),[i,p]=m(null),[h,u]=m(null),[f,b]=m(!1);if(!r.invoke||t.status!=="ACTIVE")return null;const v=(a.data??[]).map(_=>[_.id,_.label]);return e("section",{"aria-labelledby":"tool-try",children:[e("h2",{id:"tool-try",children:"Try it"}),e("form",{class:"card form",onSubmit:async _=>{_.preventDefault();const g=Ue(c);if(g.problem){u(g.problem);return}b(!0),u(null);try{const w=await n.request(Mr,{input:{spaceId:s||v[0]?.[0]||"",toolId:t.id,arguments:g.value??{}}});p(w.invokeTool)}catch(w){u(ee(w))}finally{b(!1)}},children:[r.admin&&e(q,{label:"Call in space",name:"spaceId",value:s,onChange:l,options:v}),e(ke,{label:"Arguments (JSON)",name:"arguments",errors:h?[{field:["arguments"],code:"JSON",message:h}]:[],children:_=>e("textarea",{..._,class:"mono",rows:4,value:c,onInput:g=>d(g.currentTarget.value)})}),e("div",{class:"buttons",children:e("button",{type:"submit",disabled:f,children:"Call tool"})})]}),i&&e("div",{class:"result",role:"status",children:[e("p",{children:[e($,{tone:j(i.status),children:i.status})," in ",me(i.latencyMs)," · trace ",e("code",{children:i.traceId})]}),i.error?e("p",{children:[e("code",{children:i.error.code})," ",i.error.message]}):e(he,{label:"Result",value:i.data})]})]})}function Qr({id:t}){const{api:n}=k(),r=H(()=>n.request(ln,{id:t}),[t]);return r.error?e(G,{error:r.error,retry:r.reload}):r.data?r.data.tool?e(pn,{tool:r.data.tool}):e("p",{children:["No tool ",t," is visible to this key."]}):e("p",{"aria-busy":"true",children:"Loading…"})}const Yr=[["NONE","None"],["BEARER","Bearer token"],["API_KEY","API key header"],["HEADER","Custom header"],["OAUTH_CLIENT_CREDENTIALS","OAuth client credentials"]],Xr=Be({type:"object",properties:{orderId:{type:"string",description:"The order number."}},required:["orderId"]});function Mt(t,n){const r=Ue(t);return r.problem?r.problem:r.value===null?n?"An input schema is required.":null:typeof r.value!="object"||Array.isArray(r.value)?"A JSON Schema is a JSON object.":n&&r.value.type!=="object"?'The input schema must have "type": "object".':null}function pn({tool:t}){const{api:n,can:r,viewer:o}=k(),a=Z(),s=t===null,[l,c]=m(t?.name??""),[d,i]=m(t?.label??""),[p,h]=m(t?.description??""),[u,f]=m(t?Be(t.inputSchema):Xr),[b,v]=m(t?.outputSchema?Be(t.outputSchema):""),[y,_]=m(t?.endpoint??""),[g,w]=m(t?.authType??"NONE"),[U,D]=m(""),[W,T]=m(""),[J,E]=m(""),[P,F]=m(""),[Ae,z]=m(t?.sideEffect??"READ"),[ae,mt]=m(t?String(t.timeoutMs):""),[fe,L]=m(t?String(t.maxRetries):""),[_e,ce]=m(t?.tags.join(", ")??""),[ft,yn]=m(t?.group??""),[gt,vn]=m(t?.allowedRoles??[]),[bt,Sn]=m(t?.version??""),[_t,wn]=m(t?.owner??""),[je,In]=m(!r.admin&&o.space?[o.space.id]:[]),$e=K(),yt=ge(()=>Mt(u,!0),[u]),vt=ge(()=>Mt(b,!1),[b]);if(!r.manageSome)return e("p",{children:"This key cannot create or change tools."});const Ge=[...yt?[{field:["input","inputSchema"],code:"INVALID_JSON",message:yt}]:[],...vt?[{field:["input","outputSchema"],code:"INVALID_JSON",message:vt}]:[]],B=[...Ge,...$e.errors.filter(te=>!Ge.some(Te=>Te.field.join()===te.field?.join()))],Cn=s||g!==t?.authType||W!==""||U!==""||J!==""||P!=="",kn=async te=>{if(te.preventDefault(),Ge.length)return;const Te=Cn?{type:g,headerName:U||null,secret:W||null,tokenUrl:J||null,clientId:P||null}:null,St={label:d,description:p,inputSchema:Ue(u).value,outputSchema:Ue(b).value,endpoint:y,sideEffect:Ae,timeoutMs:ae?Number(ae):null,maxRetries:fe?Number(fe):null,tags:_e.split(",").map(ye=>ye.trim()).filter(Boolean),group:ft||(s?null:""),allowedRoles:gt,version:bt||null,owner:_t||(s?null:"")};if(s){const ye={...St,name:l,auth:Te,spaceIds:je.length?je:null},ve=await $e.run(async()=>(await n.request(Nr,{input:ye})).createTool);ve?.tool&&re(X(`/tools/${encodeURIComponent(ve.tool.id)}?saved=created`))}else{const ye={...St,id:t.id,auth:Te},ve=await $e.run(async()=>(await n.request(xr,{input:ye})).updateTool);ve?.tool&&re(X(`/tools/${encodeURIComponent(ve.tool.id)}?saved=updated`))}T("")},An=["name","label","description","inputSchema","outputSchema","endpoint","auth","auth.type","auth.headerName","auth.secret","auth.tokenUrl","auth.clientId","sideEffect","timeoutMs","maxRetries","tags","group","allowedRoles","version","owner","spaceIds"];return e(S,{children:[e(x,{title:s?"Create tool":`Edit tool ${t.name}`}),e(ie,{wide:!0,noValidate:!0,onSubmit:kn,mutation:$e,fields:An,submitLabel:s?"Create tool":"Save tool",cancel:s?"/tools":`/tools/${encodeURIComponent(t.id)}`,children:[e("p",{class:"hint",children:"A CUSTOM tool is an HTTP endpoint Quiver POSTs the arguments to, with the stored credentials."}),s?e(C,{label:"Name",name:"name",value:l,onInput:c,errors:B,hint:"For the model: ^[a-zA-Z0-9_-]{1,64}$, unique where it is visible."}):e("p",{children:["Name ",e("code",{children:t.name})," (fixed)"]}),e(C,{label:"Label",name:"label",value:d,onInput:i,errors:B}),e(Y,{label:"Description",name:"description",value:p,onInput:h,errors:B,rows:3,hint:"Written for the model: what it does, when to use it, when not to."}),e(C,{label:"Endpoint",name:"endpoint",value:y,onInput:_,errors:B,type:"url",placeholder:"https://…"}),e(Y,{label:"Input schema",name:"inputSchema",value:u,onInput:f,errors:B,rows:10,mono:!0,hint:'JSON Schema 2020-12 of the arguments, with "type": "object".'}),e(Y,{label:"Output schema",name:"outputSchema",value:b,onInput:v,errors:B,rows:5,mono:!0,hint:"Optional JSON Schema of the result."}),e("fieldset",{children:[e("legend",{children:"Credentials"}),!s&&t.authType!=="NONE"&&e("p",{class:"hint",children:["A ",t.authType," secret is stored and never shown. Leave these fields alone to keep it; credentials are replaced as a whole."]}),e(q,{label:"Authentication",name:"auth.type",value:g,onChange:w,options:Yr,errors:B}),(g==="API_KEY"||g==="HEADER")&&e(C,{label:"Header name",name:"auth.headerName",value:U,onInput:D,errors:B}),g==="OAUTH_CLIENT_CREDENTIALS"&&e(S,{children:[e(C,{label:"Token URL",name:"auth.tokenUrl",value:J,onInput:E,errors:B,type:"url"}),e(C,{label:"Client id",name:"auth.clientId",value:P,onInput:F,errors:B})]}),g!=="NONE"&&e(C,{label:"Secret",name:"auth.secret",value:W,onInput:T,errors:B,type:"password",autoComplete:"new-password",hint:s?"Write-only: stored encrypted, never shown again.":"Write-only: type a new secret to replace the stored one."})]}),e("fieldset",{children:[e("legend",{children:"Policies"}),e(q,{label:"Side effect",name:"sideEffect",value:Ae,onChange:z,errors:B,options:[["READ","READ (safe to retry)"],["WRITE","WRITE (retried only with an idempotency key)"]]}),e(C,{label:"Timeout (ms)",name:"timeoutMs",value:ae,onInput:mt,errors:B,type:"number",placeholder:"10000"}),e(C,{label:"Max retries",name:"maxRetries",value:fe,onInput:L,errors:B,type:"number",placeholder:"1"}),e(pe,{legend:"Allowed roles (none checked: every role)",name:"allowedRoles",options:Or.map(te=>({value:te,label:te})),selected:gt,onChange:vn,errors:B})]}),e("fieldset",{children:[e("legend",{children:"Catalog"}),e(C,{label:"Tags",name:"tags",value:_e,onInput:ce,errors:B,hint:"Comma-separated."}),e(C,{label:"Group",name:"group",value:ft,onInput:yn,errors:B}),e(C,{label:"Version",name:"version",value:bt,onInput:Sn,errors:B,placeholder:"1.0.0"}),e(C,{label:"Owner",name:"owner",value:_t,onInput:wn,errors:B})]}),s&&r.admin&&e(pe,{legend:"Bind to spaces (none checked: global)",name:"spaceIds",options:(a.data??[]).map(te=>({value:te.id,label:`${te.label} (${te.name})`})),selected:je,onChange:In,errors:B})]})]})}const qt=50;function eo({sub:t}){return t==="new"?e(hn,{agent:null}):t?e(no,{id:decodeURIComponent(t)}):e(to,{})}function to(){const{api:t,can:n}=k(),r=oe("agents"),o=H(()=>t.request(Wn,{first:qt,after:r.after}),[r.after]),a=o.data?.agents;return e(S,{children:[e(x,{title:"Agents",children:n.manageSome&&e(A,{class:"button primary",to:"/agents/new",children:"Create agent"})}),e(G,{error:o.error,retry:o.reload}),a&&e(S,{children:[e("table",{children:[e("caption",{class:"sr-only",children:"Agents"}),e("thead",{children:e("tr",{children:[e("th",{scope:"col",children:"Name"}),e("th",{scope:"col",children:"Space"}),e("th",{scope:"col",children:"Model"}),e("th",{scope:"col",children:"Status"}),e("th",{scope:"col",children:"Changed"})]})}),e("tbody",{children:a.edges.map(({node:s})=>e("tr",{children:[e("td",{children:e(A,{to:`/agents/${encodeURIComponent(s.id)}`,children:s.name})}),e("td",{children:s.space.name}),e("td",{children:e("code",{children:s.model})}),e("td",{children:e($,{tone:j(s.status),children:s.status})}),e("td",{children:V(s.updatedAt)})]},s.id))})]}),a.edges.length===0&&e("p",{class:"empty",children:"No agent yet."}),e(se,{label:"Agents",page:r.page,pageSize:qt,shown:a.edges.length,total:a.totalCount,hasNext:a.pageInfo.hasNextPage,onNext:()=>r.next(a.pageInfo.endCursor),onPrevious:r.previous})]})]})}function no({id:t}){const{api:n,can:r}=k(),o=H(()=>n.request(zn,{id:t}),[t]),a=o.data?.agent,[s,l]=m(!1);if(o.data&&!a)return e(S,{children:[e(x,{title:"Agent not found"}),e("p",{children:["No agent ",e("code",{children:t})," is visible to this key. ",e(A,{to:"/agents",children:"Back to Agents"})]})]});const c=a?r.manage(a.space.id):!1;return e(S,{children:[e(x,{title:a?`Agent ${a.name}`:"Agent",children:[e(A,{class:"button",to:"/agents",children:"All agents"}),c&&!s&&e("button",{type:"button",onClick:()=>l(!0),children:"Edit manifest"})]}),e(G,{error:o.error,retry:o.reload}),a&&s&&e(hn,{agent:a,onSaved:()=>{l(!1),o.reload()},onCancel:()=>l(!1)}),a&&!s&&e(S,{children:[e("dl",{class:"facts",children:[e("dt",{children:"Space"}),e("dd",{children:a.space.name}),e("dt",{children:"Model"}),e("dd",{children:e("code",{children:a.model})}),e("dt",{children:"Status"}),e("dd",{children:e($,{tone:j(a.status),children:a.status})}),e("dt",{children:"Max steps"}),e("dd",{children:a.maxSteps}),e("dt",{children:"Knowledge bases"}),e("dd",{children:a.mountedKnowledgeBases.map(d=>d.name).join(", ")||"—"}),e("dt",{children:"Tools"}),e("dd",{children:a.activatedTools.map(d=>d.name).join(", ")||"—"}),e("dt",{children:"Skills"}),e("dd",{children:a.boundSkillReferences.join(", ")||"—"}),e("dt",{children:"System prompt"}),e("dd",{class:"prose",children:a.systemPrompt}),e("dt",{children:"Output format"}),e("dd",{class:"prose",children:a.outputFormat??"—"})]}),e(oo,{agentId:a.id}),r.invoke&&a.status==="ACTIVE"&&e(so,{agentId:a.id,onFinished:o.reload}),e(ao,{agent:a})]})]})}function ro(t){return t.split(/[\n,]/).map(n=>n.trim()).filter(Boolean)}function hn({agent:t,onSaved:n,onCancel:r}){const{api:o,can:a,viewer:s}=k(),l=Z(),[c,d]=m(t?.space.id??s.space?.id??""),[i,p]=m(t?.name??""),[h,u]=m(t?.model??""),[f,b]=m(t?.systemPrompt??""),[v,y]=m(String(t?.maxSteps??5)),[_,g]=m(t?.outputFormat??""),[w,U]=m(t?.mountedKnowledgeBases.map(L=>L.id)??[]),[D,W]=m(t?.activatedTools.map(L=>L.id)??[]),[T,J]=m(t?.boundSkillReferences.join(`
`)??""),[E,P]=m([]),F=c||l.data?.find(L=>!L.isSystem)?.id||"",Ae=H(async()=>F?(await o.request(Jn,{spaceId:F})).space:null,[F]),z=K();if(!a.manageSome)return e("p",{children:"This key cannot create or change agents."});const ae=Ae.data,fe=e(ie,{label:"Agent manifest",wide:!0,onSubmit:async L=>{L.preventDefault();const _e={name:i,model:h,systemPrompt:f,maxSteps:Number(v)||null,outputFormat:_||(t?"":null),mountedKnowledgeBaseIds:w,activatedToolIds:D,boundSkillIds:ro(T)};if(t){const ce=await z.run(async()=>(await o.request(Qn,{input:{id:t.id,..._e}})).updateAgent);ce&&(P(ce.notices),n?.())}else{const ce=await z.run(async()=>(await o.request(Zn,{input:{..._e,spaceId:F,maxSteps:Number(v)||5}})).createAgent);ce?.agent&&re(X(`/agents/${encodeURIComponent(ce.agent.id)}`))}},mutation:z,fields:["spaceId","name","model","systemPrompt","maxSteps","outputFormat","mountedKnowledgeBaseIds","activatedToolIds","boundSkillIds"],submitLabel:t?"Save manifest":"Create agent",cancel:t&&r?r:"/agents",notice:E.length>0&&e(be,{children:e("ul",{class:"plain",children:E.map(L=>e("li",{children:L},L))})}),children:[!t&&a.admin&&e(q,{label:"Space",name:"spaceId",value:F,onChange:d,errors:z.errors,options:(l.data??[]).map(L=>[L.id,L.label])}),e(C,{label:"Name",name:"name",value:i,onInput:p,errors:z.errors}),e(C,{label:"Model",name:"model",value:h,onInput:u,errors:z.errors,hint:"The model name sent to the OpenAI-compatible endpoint."}),e(Y,{label:"System prompt",name:"systemPrompt",value:f,onInput:b,errors:z.errors,rows:6}),e(C,{label:"Max steps",name:"maxSteps",value:v,onInput:y,errors:z.errors,type:"number"}),e(Y,{label:"Output format",name:"outputFormat",value:_,onInput:g,errors:z.errors,rows:2}),ae&&e(S,{children:[e(pe,{legend:"Knowledge bases",name:"mountedKnowledgeBaseIds",options:ae.knowledgeBases.edges.map(({node:L})=>({value:L.id,label:L.label})),selected:w,onChange:U,errors:z.errors}),e(pe,{legend:"Tools",name:"activatedToolIds",options:ae.visibleTools.edges.map(({node:L})=>({value:L.id,label:`${L.name} — ${L.label}`})),selected:D,onChange:W,errors:z.errors}),e(Y,{label:"Skills",name:"boundSkillIds",value:T,onInput:J,errors:z.errors,rows:3,mono:!0,hint:`One skill id a line; pin a version with @, e.g. sk_email_draft@1.2.0. Visible here: ${ae.skills.edges.map(({node:L})=>L.id).join(", ")||"none"}.`})]})]});return t?fe:e(S,{children:[e(x,{title:"Create agent"}),fe]})}function oo({agentId:t}){const{api:n}=k(),[r,o]=m(""),[a,s]=m(null),[l,c]=m(null),d=async p=>{p.preventDefault(),c(null);try{s((await n.request(Yn,{agentId:t,message:r||"(preview)"})).previewPrompt)}catch(h){c(ee(h))}},i=a?Math.min(100,Math.round(a.charCount/Math.max(1,a.budgetChars)*100)):0;return e("section",{"aria-labelledby":"preview-title",children:[e("h2",{id:"preview-title",children:"Prompt preview"}),e("form",{class:"filters",onSubmit:d,"aria-label":"Preview the prompt",children:[e(C,{label:"Message to assemble for",name:"previewMessage",value:r,onInput:o}),e("button",{type:"submit",children:"Preview prompt"})]}),l&&e("p",{role:"alert",children:l}),a&&e("div",{children:[e("p",{children:[a.charCount.toLocaleString()," of ",a.budgetChars.toLocaleString()," characters (",i,"% of the budget), about"," ",a.tokenEstimate.toLocaleString()," tokens."]}),e("meter",{min:0,max:a.budgetChars,value:a.charCount,"aria-label":"Prompt budget used"}),a.warnings.map(p=>e("p",{class:"error-text",children:p},p)),e("ol",{class:"sections",children:a.sections.map((p,h)=>e("li",{class:"card",children:[e("p",{children:[e($,{children:p.kind})," ",p.source&&e("code",{children:p.source})," ",p.truncated&&e($,{tone:"bad",children:"cut to fit"})]}),p.reason&&e("p",{class:"muted",children:p.reason}),e("pre",{class:"json",children:p.text})]},h))})]})]})}function so({agentId:t,onFinished:n}){const{api:r}=k(),[o,a]=m(""),[s,l]=m([]),[c,d]=m(null),[i,p]=m(""),h=K(),u=Fe(null);return N(()=>()=>u.current?.(),[]),e("section",{"aria-labelledby":"invoke-title",children:[e("h2",{id:"invoke-title",children:"Run the agent"}),e("form",{class:"card form",onSubmit:async b=>{b.preventDefault(),u.current?.(),l([]),p(""),d(null);const y=(await h.run(async()=>(await r.request(Xn,{input:{agentId:t,message:o,async:!0}})).invokeAgent))?.run;y&&(d(y),u.current=r.subscribe(er,{runId:y.id},{next:_=>{const g=_.agentRunEvents;l(w=>[...w,g]),g.delta&&p(w=>w+g.delta),g.kind==="FINISHED"&&(r.request(tr,{id:y.id}).then(w=>w.agentRun&&d(w.agentRun),()=>{}),n())},error:_=>h.setErrors([{field:null,code:"STREAM",message:_.message}])}))},children:[e(Y,{label:"Message",name:"message",value:o,onInput:a,errors:h.errors,rows:3}),e(Q,{errors:h.errors,fields:["message"]}),e("button",{type:"submit",class:"primary",disabled:h.busy,children:"Run agent"})]}),c&&e("div",{class:"card",children:[e("p",{children:["Run ",e("code",{children:c.id})," ",e($,{tone:j(c.status),children:c.status})]}),e("ol",{class:"events","aria-label":"Run events","aria-live":"polite",children:s.map((b,v)=>e("li",{children:[e($,{children:b.kind})," ",e("span",{class:"muted",children:V(b.at)}),b.step!==null&&b.step!==void 0&&e(S,{children:[" step ",b.step]}),b.toolId&&e(S,{children:[" ","tool ",e("code",{children:b.toolId})]}),b.toolCall&&e(S,{children:[" ",e($,{tone:j(b.toolCall.status),children:b.toolCall.status})," ",me(b.toolCall.latencyMs)]}),b.kind==="FINISHED"&&b.run.error&&e(S,{children:[" ",b.run.error.message]})]},v))}),(c.output||i)&&e(S,{children:[e("h3",{children:"Answer"}),e("p",{class:"prose answer",children:c.output??i})]}),c.error&&e("p",{class:"error-text",children:c.error.message})]})]})}function ao({agent:t}){const n=t.runs.edges.map(({node:o})=>o),r=ht("run");return e("section",{"aria-labelledby":"runs-title",children:[e("h2",{id:"runs-title",children:["Run history (",t.runs.totalCount,")"]}),n.length===0&&e("p",{class:"empty",children:"No run yet."}),n.map(o=>e("details",{id:o.id,class:"card run",open:o.id===r,children:[e("summary",{children:[e($,{tone:j(o.status),children:o.status})," ",V(o.startedAt)," — ",o.input.slice(0,80)]}),e("dl",{class:"facts",children:[e("dt",{children:"Run"}),e("dd",{children:e("code",{children:o.id})}),e("dt",{children:"Steps"}),e("dd",{children:o.steps}),e("dt",{children:"Tokens"}),e("dd",{children:[o.promptTokens??"—"," in, ",o.completionTokens??"—"," out"]}),e("dt",{children:"Answer"}),e("dd",{class:"prose",children:o.output??o.error?.message??"—"})]}),e("table",{class:"compact",children:[e("caption",{children:"Tool calls"}),e("thead",{children:e("tr",{children:[e("th",{scope:"col",children:"Tool"}),e("th",{scope:"col",children:"Status"}),e("th",{scope:"col",children:"Latency"}),e("th",{scope:"col",children:"Arguments"})]})}),e("tbody",{children:o.toolCalls.map(a=>e("tr",{children:[e("td",{children:e("code",{children:a.toolId})}),e("td",{children:[e($,{tone:j(a.status),children:a.status})," ",a.error?.code]}),e("td",{children:me(a.latencyMs)}),e("td",{children:e(he,{label:`Arguments of ${a.id}`,value:a.arguments})})]},a.id))})]})]},o.id))]})}const Ut=50;function lo(t){return t==="ACTIVE"?"good":"bad"}function io(){const{api:t,can:n,viewer:r}=k(),[o,a]=m("ACTIVE"),[s,l]=m(!1),[c,d]=m(null),i=oe(o),p=H(()=>t.request(nr,{first:Ut,after:i.after,state:o||null}),[o,i.after]),h=p.data?.apiKeys;return e(S,{children:[e(x,{title:"API keys",children:n.manageSome&&!s&&e("button",{type:"button",class:"primary",onClick:()=>l(!0),children:"Create API key"})}),e("dl",{class:"facts",children:[e("dt",{children:"Signed in with"}),e("dd",{children:[e("code",{children:r.keyId})," ",r.keyLabel?`“${r.keyLabel}”`:""," (",r.role,")"]})]}),!n.manageSome&&e("p",{children:"Only ADMIN and SPACE_ADMIN keys manage keys; ask one of them for another key."}),s&&e(uo,{onDone:u=>{l(!1),u&&(d(u),p.reload())}}),c&&e("div",{class:"notice secret",role:"status",children:[e("p",{children:["Key ",e("code",{children:c.id})," created. Copy its secret now: it is shown only this once and is not stored."]}),e("label",{for:"new-secret",children:"Secret"}),e("input",{id:"new-secret",readOnly:!0,value:c.secret,onFocus:u=>u.currentTarget.select()}),e("div",{class:"buttons",children:[e("button",{type:"button",onClick:()=>{navigator.clipboard?.writeText(c.secret)},children:"Copy secret"}),e("button",{type:"button",onClick:()=>d(null),children:"Done"})]})]}),n.manageSome&&e(S,{children:[e("form",{class:"filters","aria-label":"Filter keys",onSubmit:u=>u.preventDefault(),children:e(q,{label:"State",name:"state",value:o,onChange:a,options:[["","Any state"],["ACTIVE","Active"],["EXPIRED","Expired"],["REVOKED","Revoked"]]})}),e(G,{error:p.error,retry:p.reload}),h&&e(S,{children:[e("table",{children:[e("caption",{class:"sr-only",children:"API keys"}),e("thead",{children:e("tr",{children:[e("th",{scope:"col",children:"Label"}),e("th",{scope:"col",children:"Id"}),e("th",{scope:"col",children:"Role"}),e("th",{scope:"col",children:"Space"}),e("th",{scope:"col",children:"Created"}),e("th",{scope:"col",children:"Expires"}),e("th",{scope:"col",children:"Last used"}),e("th",{scope:"col",children:"State"}),e("th",{scope:"col",children:"Action"})]})}),e("tbody",{children:h.edges.map(({node:u})=>e(co,{apiKey:u,isCurrent:u.id===r.keyId,onChanged:p.reload},u.id))})]}),h.edges.length===0&&e("p",{class:"empty",children:"No key in this state."}),e(se,{label:"API keys",page:i.page,pageSize:Ut,shown:h.edges.length,total:h.totalCount,hasNext:h.pageInfo.hasNextPage,onNext:()=>i.next(h.pageInfo.endCursor),onPrevious:i.previous})]})]})]})}function co({apiKey:t,isCurrent:n,onChanged:r}){const{api:o}=k(),[a,s]=m(!1),l=K(),c=t.label??t.id,d=async()=>{const i=await l.run(async()=>(await o.request(or,{input:{id:t.id}})).revokeApiKey);s(!1),i&&r()};return e("tr",{children:[e("td",{children:[t.label??"—"," ",n&&e($,{tone:"busy",children:"in use here"})]}),e("td",{children:e("code",{children:t.id})}),e("td",{children:t.role}),e("td",{children:t.space?.name??"every space"}),e("td",{children:V(t.createdAt)}),e("td",{children:V(t.expiresAt)}),e("td",{children:V(t.lastUsedAt)}),e("td",{children:e($,{tone:lo(t.state),children:t.state})}),e("td",{children:[t.state==="ACTIVE"&&(a?e("div",{class:"buttons",children:[e("span",{children:[n?"This signs the console out. ":"","Revoke?"]}),e("button",{type:"button",class:"danger",onClick:d,disabled:l.busy,children:["Confirm revoke ",c]}),e("button",{type:"button",onClick:()=>s(!1),children:"Keep"})]}):e("button",{type:"button",onClick:()=>s(!0),"aria-label":`Revoke ${c}`,children:"Revoke"})),e(Q,{errors:l.errors,fields:[]})]})]})}function uo({onDone:t}){const{api:n,can:r,viewer:o}=k(),a=Z(),s=r.admin?["ADMIN","SPACE_ADMIN","MEMBER","VIEWER"]:["SPACE_ADMIN","MEMBER","VIEWER"],[l,c]=m("MEMBER"),[d,i]=m(o.space?.id??""),[p,h]=m(""),[u,f]=m(""),b=K(),v=a.data?.[0]?.id??"";return e(ie,{label:"Create API key",onSubmit:async _=>{_.preventDefault();const g=await b.run(async()=>(await n.request(rr,{input:{role:l,spaceId:l==="ADMIN"?null:d||v||null,label:p||null,expiresAt:u?new Date(u).toISOString():null}})).createApiKey);g?.apiKey&&g.secret&&t({id:g.apiKey.id,secret:g.secret})},mutation:b,fields:["role","spaceId","label","expiresAt"],submitLabel:"Create key",cancel:()=>t(null),children:[e(q,{label:"Role",name:"role",value:l,onChange:c,errors:b.errors,options:s.map(_=>[_,_])}),r.admin&&l!=="ADMIN"&&e(q,{label:"Space",name:"spaceId",value:d,onChange:i,errors:b.errors,options:(a.data??[]).map(_=>[_.id,_.label])}),e(C,{label:"Label",name:"label",value:p,onInput:h,errors:b.errors,hint:"A note to recognise the key by."}),e(C,{label:"Expires",name:"expiresAt",value:u,onInput:f,errors:b.errors,type:"datetime-local",hint:"Your local time; empty: never."})]})}const po=3e3,ho=1e4,mo=2e3,Ze=50,mn="quiver.approvals.space",ot="quiver:approvals-space",st="quiver:approvals-count";function Oe(){return window.localStorage.getItem(mn)??""}function fo(t){Oe()!==t&&(window.localStorage.setItem(mn,t),window.dispatchEvent(new Event(ot)))}function go(t){window.dispatchEvent(new CustomEvent(st,{detail:t}))}function fn(){const[t,n]=m(()=>document.visibilityState==="visible");return N(()=>{const r=()=>n(document.visibilityState==="visible");return document.addEventListener("visibilitychange",r),()=>document.removeEventListener("visibilitychange",r)},[]),t}function bo(t,n){const r=fn(),[o,a]=m(!1);N(()=>{if(!r){a(!0);return}o&&(a(!1),t());const s=window.setInterval(t,n);return()=>window.clearInterval(s)},[r,t,n,o])}function _o(t){const[n,r]=m(()=>Date.now());return N(()=>{const o=window.setInterval(()=>r(Date.now()),t);return()=>window.clearInterval(o)},[t]),n}function Bt(t){const n=Math.max(0,Math.floor(t/1e3));if(n<60)return`${n} s`;const r=Math.floor(n/60);if(r<60)return`${r} min`;const o=Math.floor(r/60);if(o<24)return r%60?`${o} h ${r%60} min`:`${o} h`;const a=Math.floor(o/24);return o%24?`${a} d ${o%24} h`:`${a} d`}function yo(){const{api:t,viewer:n,can:r}=k(),o=Z(),a=ht("space"),[s,l]=m(a??n.space?.id??Oe()),c=(o.data??[]).map(_=>[_.id,_.label]),d=o.data===null||c.some(([_])=>_===s)?s:c[0]?.[0]??"",i=oe(d),[p,h]=m(null);N(()=>{d&&fo(d)},[d]);const u=_=>{l(_),h(null);const g=new URLSearchParams(window.location.search);g.set("space",_),window.history.replaceState(null,"",`${window.location.pathname}?${g.toString()}`)},f=H(async()=>{if(!d)return null;const _=await t.request(sr,{spaceId:d,first:Ze,after:i.after});return{spaceId:d,connection:_.pendingApprovals}},[d,i.after]);bo(f.reload,po);const b=_o(1e3),v=f.data&&f.data.spaceId===d?f.data.connection:null;N(()=>{f.data&&go({spaceId:f.data.spaceId,count:f.data.connection.totalCount})},[f.data]);const y=r.manage(d);return e(S,{children:[e(x,{title:"Approvals"}),e("form",{class:"filters","aria-label":"Filter approvals",onSubmit:_=>_.preventDefault(),children:e(q,{label:"Space",name:"space",value:d,onChange:u,options:c})}),e("p",{class:"hint",children:["Tool calls of agent runs that wait for a person, oldest first; the list follows new requests and decisions by itself."," ",y?"Approved, a call runs and its run continues; rejected, it does not run and the model is told why.":"Read only: a SPACE_ADMIN of this space or an ADMIN decides."]}),e(G,{error:o.error,retry:o.reload}),e(G,{error:f.error,retry:f.reload}),p&&e(be,{children:p}),v&&e(S,{children:[e("p",{class:"muted","aria-live":"polite",children:v.totalCount===0?"Nothing waits for a decision in this space.":`${v.totalCount.toLocaleString()} call${v.totalCount===1?"":"s"} waiting.`}),v.edges.map(({node:_})=>e(vo,{call:_,now:b,mayDecide:y,onDecided:g=>{h(g),f.reload()}},_.id)),v.totalCount>Ze&&e(se,{label:"Approvals",page:i.page,pageSize:Ze,shown:v.edges.length,total:v.totalCount,hasNext:v.pageInfo.hasNextPage,onNext:()=>i.next(v.pageInfo.endCursor),onPrevious:i.previous})]})]})}function vo({call:t,now:n,mayDecide:r,onDecided:o}){const{api:a}=k(),[s,l]=m(""),c=K(),d=t.tool?.name??t.toolId,i=t.approval?Date.parse(t.approval.requestedAt):Number.NaN,p=t.approval?Date.parse(t.approval.expiresAt):Number.NaN,h=c.errors.map(f=>He([f],"reason").length?{...f,field:[...(f.field??[]).slice(0,-1),"comment"]}:f),u=async f=>{const b=s.trim()?s:null,v=f?await c.run(async()=>(await a.request(lr,{input:{toolCallId:t.id,comment:b}})).approveToolCall):await c.run(async()=>(await a.request(ir,{input:{toolCallId:t.id,reason:b}})).rejectToolCall);if(v){const y=v.run?` Run ${v.run.id} is ${v.run.status}.`:"";o(`${f?"Approved":"Rejected"} ${d} (${t.id}).${y}`)}};return e("section",{class:"card approval","aria-label":`Approval ${t.id}`,children:[e("h2",{children:[e("code",{children:d})," ",t.agent&&e("span",{class:"muted",children:["for agent ",t.agent.name]})]}),e("dl",{class:"facts",children:[e("dt",{children:"Tool"}),e("dd",{children:[e(A,{to:`/tools/${encodeURIComponent(t.toolId)}`,children:t.tool?.label??t.toolId})," ",e("code",{class:"muted",children:t.toolId})]}),e("dt",{children:"Agent"}),e("dd",{children:t.agent?e(A,{to:`/agents/${encodeURIComponent(t.agent.id)}`,children:t.agent.name}):"—"}),e("dt",{children:"Run"}),e("dd",{children:t.run&&t.agent?e(S,{children:[e(A,{to:`/agents/${encodeURIComponent(t.agent.id)}?run=${encodeURIComponent(t.run.id)}`,"aria-label":`Run ${t.run.id}`,children:e("code",{children:t.run.id})})," ",e($,{tone:j(t.run.status),children:t.run.status})]}):t.run?.id??"—"}),e("dt",{children:"Call"}),e("dd",{children:e("code",{children:t.id})}),e("dt",{children:"Requested"}),e("dd",{children:[V(t.approval?.requestedAt),Number.isFinite(i)&&e(S,{children:[" · waiting ",Bt(n-i)]})]}),e("dt",{children:"Expires"}),e("dd",{children:[V(t.approval?.expiresAt),Number.isFinite(p)&&(p>n?e(S,{children:[" · in ",Bt(p-n)]}):e(S,{children:" · expired"}))]})]}),e("h3",{children:"Proposed arguments"}),e(he,{label:`Proposed arguments of ${t.id}`,value:t.arguments}),r&&e("form",{class:"decision","aria-label":`Decide on ${t.id}`,onSubmit:f=>f.preventDefault(),children:[e(Y,{label:"Comment",name:"comment",value:s,onInput:l,errors:h,rows:2,hint:`Optional: kept on the call, and told to the model when rejected. ${s.length.toLocaleString()} of ${mo.toLocaleString()} characters.`}),e(Q,{errors:h,fields:["comment"]}),e("div",{class:"buttons",children:[e("button",{type:"button",class:"primary",disabled:c.busy,onClick:()=>{u(!0)},children:"Approve"}),e("button",{type:"button",class:"danger",disabled:c.busy,onClick:()=>{u(!1)},children:"Reject"})]})]})]})}function So(){const{api:t,viewer:n,can:r}=k(),[o,a]=m(Oe),s=n.space?.id??o,l=s!==""&&r.manage(s),c=fn(),[d,i]=m(null);if(N(()=>{const h=()=>a(Oe());return window.addEventListener(ot,h),()=>window.removeEventListener(ot,h)},[]),N(()=>{if(!l||!c)return;let h=!0;const u=()=>t.request(ar,{spaceId:s}).then(v=>h&&i({spaceId:s,count:v.pendingApprovals.totalCount}),()=>{});u();const f=window.setInterval(()=>{u()},ho),b=v=>{const y=v.detail;y.spaceId===s&&i(y)};return window.addEventListener(st,b),()=>{h=!1,window.clearInterval(f),window.removeEventListener(st,b)}},[t,s,l,c]),!l||d===null||d.spaceId!==s||d.count===0)return null;const p=`${d.count} pending approval${d.count===1?"":"s"}`;return e("span",{class:"badge busy nav-count",title:p,children:[e("span",{"aria-hidden":"true",children:d.count}),e("span",{class:"sr-only",children:p})]})}const Ot=50,at=[".md",".markdown",".txt",".html",".htm"];function wo({sub:t}){return t==="new"?e(Co,{}):t?e(ko,{id:decodeURIComponent(t)}):e(Io,{})}function Io(){const{api:t,can:n}=k(),r=oe("kbs"),o=H(()=>t.request(an,{first:Ot,after:r.after}),[r.after]),a=o.data?.knowledgeBases;return e(S,{children:[e(x,{title:"Knowledge",children:n.manageSome&&e(A,{class:"button primary",to:"/knowledge/new",children:"Create knowledge base"})}),e(G,{error:o.error,retry:o.reload}),a&&e(S,{children:[e("table",{children:[e("caption",{children:"Knowledge bases"}),e("thead",{children:e("tr",{children:[e("th",{scope:"col",children:"Label"}),e("th",{scope:"col",children:"Name"}),e("th",{scope:"col",children:"Space"}),e("th",{scope:"col",children:"Documents"}),e("th",{scope:"col",children:"Created"})]})}),e("tbody",{children:a.edges.map(({node:s})=>e("tr",{children:[e("td",{children:e(A,{to:`/knowledge/${encodeURIComponent(s.id)}`,children:s.label})}),e("td",{children:e("code",{children:s.name})}),e("td",{children:s.space.name}),e("td",{children:s.documentCount}),e("td",{children:V(s.createdAt)})]},s.id))})]}),a.edges.length===0&&e("p",{class:"empty",children:"No knowledge base yet."}),e(se,{label:"Knowledge bases",page:r.page,pageSize:Ot,shown:a.edges.length,total:a.totalCount,hasNext:a.pageInfo.hasNextPage,onNext:()=>r.next(a.pageInfo.endCursor),onPrevious:r.previous}),e(gn,{bases:a.edges.map(({node:s})=>({id:s.id,label:s.label,spaceId:s.space.id}))})]})]})}function Co(){const{api:t,can:n,viewer:r}=k(),o=Z(),[a,s]=m(r.space?.id??""),[l,c]=m(""),[d,i]=m(""),[p,h]=m(""),u=K();return n.manageSome?e(S,{children:[e(x,{title:"Create knowledge base"}),e(ie,{onSubmit:async b=>{b.preventDefault();const v=await u.run(async()=>(await t.request(ur,{input:{spaceId:a||o.data?.[0]?.id||"",name:l,label:d,description:p||null}})).createKnowledgeBase);v?.knowledgeBase&&re(X(`/knowledge/${encodeURIComponent(v.knowledgeBase.id)}`))},mutation:u,fields:["spaceId","name","label","description"],submitLabel:"Create knowledge base",cancel:"/knowledge",children:[n.admin&&e(q,{label:"Space",name:"spaceId",value:a,onChange:s,errors:u.errors,options:(o.data??[]).map(b=>[b.id,b.label])}),e(C,{label:"Name",name:"name",value:l,onInput:c,errors:u.errors,hint:"Unique in the space: ^[a-zA-Z0-9_-]{1,64}$."}),e(C,{label:"Label",name:"label",value:d,onInput:i,errors:u.errors}),e(Y,{label:"Description",name:"description",value:p,onInput:h,errors:u.errors,rows:2})]})]}):e("p",{children:"This key cannot create knowledge bases."})}function ko({id:t}){const{api:n,can:r}=k(),o=H(()=>n.request(dr,{id:t}),[t]),a=H(()=>n.request(an,{first:100,after:null}),[]),s=a.data?.knowledgeBases.edges.map(({node:d})=>d).find(d=>d.id===t),l=o.data?.node,c=l&&"documents"in l?l.documents:null;return e(S,{children:[e(x,{title:s?`Knowledge base ${s.label}`:"Knowledge base",children:e(A,{class:"button",to:"/knowledge",children:"All knowledge bases"})}),e(G,{error:o.error??a.error,retry:o.reload}),s&&e("dl",{class:"facts",children:[e("dt",{children:"Name"}),e("dd",{children:e("code",{children:s.name})}),e("dt",{children:"Space"}),e("dd",{children:s.space.name}),e("dt",{children:"Description"}),e("dd",{children:s.description??"—"})]}),s&&r.manage(s.space.id)&&e($o,{knowledgeBaseId:t,onAdded:o.reload}),c&&e("table",{children:[e("caption",{children:["Documents (",c.totalCount,")"]}),e("thead",{children:e("tr",{children:[e("th",{scope:"col",children:"Title"}),e("th",{scope:"col",children:"Source"}),e("th",{scope:"col",children:"Chunks"}),e("th",{scope:"col",children:"Added"})]})}),e("tbody",{children:c.edges.map(({node:d})=>e("tr",{children:[e("td",{children:d.title}),e("td",{children:d.source??"—"}),e("td",{children:d.chunkCount}),e("td",{children:V(d.createdAt)})]},d.id))})]}),s&&e(gn,{bases:[{id:s.id,label:s.label,spaceId:s.space.id}]})]})}async function Ao(t){const n=t.name.toLowerCase();if(!at.some(s=>n.endsWith(s)))throw new Error(`${t.name}: only ${at.join(" ")} files are read here (PDF: quiver kb ingest).`);const r=await t.text(),o=t.name.replace(/\.[^.]+$/,"");if(n.endsWith(".html")||n.endsWith(".htm")){const s=new DOMParser().parseFromString(r,"text/html"),l=[];return s.body.querySelectorAll("h1,h2,h3,h4,h5,h6,p,li,pre,td").forEach(c=>{const d=c.textContent?.trim();if(!d)return;const i=/^H([1-6])$/.exec(c.tagName)?.[1];l.push(i?`${"#".repeat(Number(i))} ${d}`:d)}),{title:s.title.trim()||o,text:l.join(`

`)}}return{title:/^ {0,3}#[ \t]+(.+?)[ \t]*#*[ \t]*$/m.exec(r)?.[1]?.trim()||o,text:r}}function $o({knowledgeBaseId:t,onAdded:n}){const{api:r}=k(),[o,a]=m([]),[s,l]=m(!1),c=async d=>{if(!d?.length)return;l(!0);const i=[];for(const p of Array.from(d))try{const{title:h,text:u}=await Ao(p),f=(await r.request(pr,{input:{knowledgeBaseId:t,title:h,text:u,source:p.name}})).addDocument;i.push(f.userErrors.length?`${p.name}: ${f.userErrors.map(b=>b.message).join(" ")}`:`${p.name}: ${f.outcome?.toLowerCase()}, ${f.document?.chunkCount} chunks`)}catch(h){i.push(ee(h))}a(i),l(!1),n()};return e("section",{"aria-labelledby":"upload-title",class:"card",children:[e("h2",{id:"upload-title",children:"Upload files"}),e("div",{class:"field",children:[e("label",{for:"upload-files",children:"Files (.md, .txt, .html)"}),e("input",{id:"upload-files",type:"file",multiple:!0,accept:at.join(","),disabled:s,onChange:d=>c(d.currentTarget.files)}),e("p",{class:"hint",children:"The same file name again replaces that document."})]}),o.length>0&&e(be,{children:e("ul",{class:"plain",children:o.map(d=>e("li",{children:d},d))})})]})}function gn({bases:t}){const{api:n,viewer:r}=k(),o=Z(),[a,s]=m(r.space?.id??t[0]?.spaceId??""),[l,c]=m(""),[d,i]=m("5"),[p,h]=m([]),[u,f]=m(null),[b,v]=m(null),y=t.filter(g=>g.spaceId===a);return e("section",{"aria-labelledby":"search-title",children:[e("h2",{id:"search-title",children:"Search playground"}),e("form",{class:"card form",onSubmit:async g=>{g.preventDefault(),v(null);try{const w=await n.request(hr,{spaceId:a,query:l,topK:Number(d)||5,knowledgeBaseIds:p.length?p.filter(U=>y.some(D=>D.id===U)):null});f(w.searchKnowledge)}catch(w){v(ee(w))}},role:"search","aria-label":"Search knowledge",children:[!r.space&&e(q,{label:"Space",name:"spaceId",value:a,onChange:s,options:(o.data??[]).map(g=>[g.id,g.label])}),e(C,{label:"Query",name:"query",value:l,onInput:c}),e(C,{label:"Results",name:"topK",value:d,onInput:i,type:"number"}),y.length>1&&e(pe,{legend:"Only these knowledge bases",name:"knowledgeBaseIds",options:y.map(g=>({value:g.id,label:g.label})),selected:p,onChange:h}),e("div",{class:"buttons",children:e("button",{type:"submit",children:"Search"})})]}),b&&e("p",{class:"form-errors",role:"alert",children:b}),u&&e("ol",{class:"hits","aria-label":"Search results",children:[u.length===0&&e("li",{children:"No passage matches."}),u.map(g=>e("li",{class:"card",children:[e("p",{class:"hit-meta",children:[e("span",{class:"score",children:["score ",g.score.toFixed(4)]})," · ",e("strong",{children:g.document.title}),g.headingPath.length>0&&e(S,{children:[" › ",g.headingPath.join(" › ")]})]}),e("blockquote",{children:g.text}),e("p",{class:"citation",children:["Cite: ",g.document.title,g.source?`, ${g.source}`:"",", passage ",g.chunkIndex+1]})]},`${g.document.id}-${g.chunkIndex}`))]})]})}const Qe=500;function To(){const{api:t}=k(),n=Z(),[r,o]=m(""),[a,s]=m(""),[l,c]=m(""),[d,i]=m([]),[p,h]=m([]),[u,f]=m(!1),[b,v]=m(null),[y,_]=m("connecting"),[g,w]=m(null),U=Fe(u);U.current=u;const D=a.trim();return N(()=>t.onSocketState(_),[t]),N(()=>{w(null);const T={spaceId:r||null,toolId:D||null,status:l||null};return t.subscribe(cr,{filter:T},{next:E=>{const P=E.toolCalls;U.current?h(F=>[P,...F].slice(0,Qe)):i(F=>[P,...F].slice(0,Qe))},error:E=>w(E.message)})},[t,r,D,l]),e(S,{children:[e(x,{title:"Live calls",children:[u?e("button",{type:"button",onClick:()=>{i(T=>[...p,...T].slice(0,Qe)),h([]),f(!1)},children:["Resume (",p.length," waiting)"]}):e("button",{type:"button",onClick:()=>f(!0),children:"Pause"}),e("button",{type:"button",onClick:()=>i([]),children:"Clear"})]}),e("p",{class:"muted",role:"status",children:[y==="connected"?"Listening: every finished call appears here as it happens.":y==="connecting"?"Connecting…":"Disconnected.",u&&" Paused: new calls wait until you resume."]}),g&&e("p",{class:"form-errors",role:"alert",children:g}),e("form",{class:"filters","aria-label":"Filter live calls",onSubmit:T=>T.preventDefault(),children:[e(q,{label:"Space",name:"spaceId",value:r,onChange:o,options:[["","Every space"],...(n.data??[]).map(T=>[T.id,T.label])]}),e(C,{label:"Tool id",name:"toolId",value:a,onInput:s,placeholder:"e.g. bt_calculator"}),e(q,{label:"Status",name:"status",value:l,onChange:c,options:[["","Any status"],["SUCCESS","Success"],["FAILED","Failed"]]})]}),e("table",{class:"live",children:[e("caption",{class:"sr-only",children:"Live tool calls, newest first"}),e("thead",{children:e("tr",{children:[e("th",{scope:"col",children:"Started"}),e("th",{scope:"col",children:"Tool"}),e("th",{scope:"col",children:"Space"}),e("th",{scope:"col",children:"Status"}),e("th",{scope:"col",children:"Latency"}),e("th",{scope:"col",children:"Caller"}),e("th",{scope:"col",children:"Call"})]})}),e("tbody",{children:d.map(T=>e("tr",{class:b?.id===T.id?"selected":void 0,children:[e("td",{children:V(T.startedAt)}),e("td",{children:e("code",{children:T.toolId})}),e("td",{children:T.space.name}),e("td",{children:[e($,{tone:j(T.status),children:T.status})," ",T.error?.code]}),e("td",{children:me(T.latencyMs)}),e("td",{children:T.agent?`agent ${T.agent.name}`:"direct"}),e("td",{children:e("button",{type:"button",onClick:()=>v(T),"aria-label":`Open call ${T.id}`,children:"Open"})})]},T.id))})]}),d.length===0&&e("p",{class:"empty",children:"No call yet. Calls made anywhere — the API, agents, other consoles — show up here."}),b&&e(Eo,{call:b,onClose:()=>v(null)})]})}function Eo({call:t,onClose:n}){const r=Fe(null);return N(()=>r.current?.focus(),[t.id]),e("section",{class:"card call-detail","aria-labelledby":"call-title",children:[e("h2",{id:"call-title",tabIndex:-1,ref:r,children:["Call ",t.id]}),e("dl",{class:"facts",children:[e("dt",{children:"Tool"}),e("dd",{children:e(A,{to:`/tools/${encodeURIComponent(t.toolId)}`,children:t.toolId})}),e("dt",{children:"Status"}),e("dd",{children:e($,{tone:j(t.status),children:t.status})}),e("dt",{children:"Space"}),e("dd",{children:t.space.name}),e("dt",{children:"Started"}),e("dd",{children:V(t.startedAt)}),e("dt",{children:"Latency"}),e("dd",{children:[me(t.latencyMs),", ",t.attempts," attempt",t.attempts===1?"":"s"]}),e("dt",{children:"Trace id"}),e("dd",{children:e("code",{children:t.traceId})}),e("dt",{children:"Idempotency key"}),e("dd",{children:t.idempotencyKey??"—"}),e("dt",{children:"Caller"}),e("dd",{children:t.agent?e(S,{children:["agent ",e(A,{to:`/agents/${encodeURIComponent(t.agent.id)}`,children:t.agent.name}),t.run&&e(S,{children:[", run ",e("code",{children:t.run.id})]})]}):"a direct call"})]}),e("h3",{children:"Arguments"}),e(he,{label:"Arguments",value:t.arguments}),t.error?e(S,{children:[e("h3",{children:"Error"}),e("p",{children:[e("code",{children:t.error.code})," ",t.error.message]}),t.error.detail&&e("pre",{class:"json",children:t.error.detail})]}):e(S,{children:[e("h3",{children:"Result"}),e(he,{label:"Result",value:t.result})]}),e("button",{type:"button",onClick:n,children:"Close call"})]})}const Ye=20,Kt=100;function Po(){const{api:t,can:n}=k(),r=oe("mcp"),o=H(()=>t.request(mr,{first:Ye,after:r.after}),[r.after]),[a,s]=m(!1),l=o.data?.mcpServers;return e(S,{children:[e(x,{title:"MCP servers",children:n.admin&&!a&&e("button",{type:"button",class:"primary",onClick:()=>s(!0),children:"Register MCP server"})}),a&&e(No,{onDone:c=>{s(!1),c&&o.reload()}}),e(G,{error:o.error,retry:o.reload}),l&&l.edges.length===0&&e("p",{class:"empty",children:"No MCP server is registered."}),l?.edges.map(({node:c})=>e(Do,{server:c,onChanged:o.reload},c.id)),l&&l.totalCount>Ye&&e(se,{label:"MCP servers",page:r.page,pageSize:Ye,shown:l.edges.length,total:l.totalCount,hasNext:l.pageInfo.hasNextPage,onNext:()=>r.next(l.pageInfo.endCursor),onPrevious:r.previous})]})}function Do({server:t,onChanged:n}){const{api:r,can:o}=k(),a=K(),s=K(),[l,c]=m(null),d=oe(`mcp-tools-${t.id}`),i=H(()=>r.request(fr,{id:t.id,after:d.after}),[t.id,d.after]),p=i.data?.node&&"tools"in i.data.node?i.data.node.tools:null,h=p?.edges.filter(({node:y})=>y.driftedAt)??[],u=()=>{i.reload(),n()},f=async()=>{c(null);const y=await a.run(async()=>(await r.request(br,{id:t.id})).syncMcpServer);y?.syncReport&&c(y.syncReport),u()},b=async(y,_)=>{await s.run(async()=>(await r.request(pt,{input:{id:y,status:_}})).setStatus)&&u()},v=`server-${t.id}`;return e("section",{class:"card","aria-labelledby":v,children:[e("h2",{id:v,children:[t.name," ",e($,{tone:j(t.status),children:t.status})," ",e($,{children:t.transport}),h.length>0&&e($,{tone:"bad",children:[h.length," drifted"]})]}),e("dl",{class:"facts",children:[e("dt",{children:"Id"}),e("dd",{children:e("code",{children:t.id})}),e("dt",{children:t.url?"URL":"Command"}),e("dd",{children:e("code",{children:t.url??t.command?.join(" ")})}),e("dt",{children:"Visible in"}),e("dd",{children:t.isGlobal?"every space (global)":t.boundSpaces.map(y=>y.name).join(", ")}),e("dt",{children:"Last sync"}),e("dd",{children:V(t.lastSyncedAt)}),t.lastError&&e(S,{children:[e("dt",{children:"Last error"}),e("dd",{class:"error-text",children:t.lastError})]})]}),o.admin&&e("div",{class:"buttons",children:[e("button",{type:"button",onClick:f,disabled:a.busy,children:a.busy?"Syncing…":`Sync ${t.name}`}),t.status==="ACTIVE"?e("button",{type:"button",onClick:()=>b(t.id,"DISABLED"),disabled:s.busy,children:"Disable server"}):e("button",{type:"button",onClick:()=>b(t.id,"ACTIVE"),disabled:s.busy,children:"Re-activate server"})]}),e(Q,{errors:[...a.errors,...s.errors],fields:[]}),l&&e(Ro,{report:l}),e("h3",{children:["Tools",p?` (${p.totalCount})`:""]}),e(G,{error:i.error,retry:i.reload}),e("table",{class:"compact",children:[e("caption",{class:"sr-only",children:["Tools of ",t.name]}),e("thead",{children:e("tr",{children:[e("th",{scope:"col",children:"Tool"}),e("th",{scope:"col",children:"Status"}),e("th",{scope:"col",children:"Drift"}),o.admin&&e("th",{scope:"col",children:"Action"})]})}),e("tbody",{children:p?.edges.map(({node:y})=>e("tr",{children:[e("td",{children:e(A,{to:`/tools/${encodeURIComponent(y.id)}`,children:y.name})}),e("td",{children:e($,{tone:j(y.status),children:y.status})}),e("td",{children:y.driftedAt?e($,{tone:"bad",children:["drifted ",V(y.driftedAt)]}):"—"}),o.admin&&e("td",{children:y.status!=="ACTIVE"&&e("button",{type:"button",onClick:()=>b(y.id,"ACTIVE"),disabled:s.busy,"aria-label":`Re-activate ${y.name}`,children:"Re-activate"})})]},y.id))})]}),p&&p.totalCount>Kt&&e(se,{label:`Tools of ${t.name}`,page:d.page,pageSize:Kt,shown:p.edges.length,total:p.totalCount,hasNext:p.pageInfo.hasNextPage,onNext:()=>d.next(p.pageInfo.endCursor),onPrevious:d.previous})]})}function Ro({report:t}){const n=[["Added",t.added],["Changed",t.updated],["Disabled",t.disabled],["Drifted",t.drifted],["Re-activated",t.reactivated],["Vanished",t.vanished],["Skipped",t.skipped]];return e("div",{class:"result",role:"status","aria-label":"Sync result",children:[e("p",{children:["Synced: ",t.added.length," added, ",t.updated.length," changed, ",t.disabled.length," disabled,"," ",t.unchanged.length," unchanged (",t.pages," page",t.pages===1?"":"s",")."]}),e("dl",{class:"facts",children:n.filter(([,r])=>r.length).map(([r,o])=>e(S,{children:[e("dt",{children:r},`${r}-t`),e("dd",{children:o.join(", ")},`${r}-d`)]}))})]})}function No({onDone:t}){const{api:n}=k(),r=Z(),[o,a]=m(""),[s,l]=m("STREAMABLE_HTTP"),[c,d]=m(""),[i,p]=m(""),[h,u]=m("NONE"),[f,b]=m(""),[v,y]=m(""),[_,g]=m([]),w=K();return e(ie,{label:"Register MCP server",onSubmit:async D=>{D.preventDefault(),await w.run(async()=>(await n.request(gr,{input:{name:o,transport:s,url:s==="STDIO"?null:c,command:s==="STDIO"?i.split(/\s+/).filter(Boolean):null,auth:h==="NONE"?null:{type:h,headerName:f||null,secret:v||null},spaceIds:_.length?_:null}})).registerMcpServer)&&t(!0)},mutation:w,fields:["name","transport","url","command","auth","auth.type","auth.headerName","auth.secret","spaceIds"],submitLabel:"Register server",cancel:()=>t(!1),children:[e(C,{label:"Name",name:"name",value:o,onInput:a,errors:w.errors,hint:"^[a-zA-Z0-9_-]{1,64}$; tools are named {serverId}__{tool}."}),e(q,{label:"Transport",name:"transport",value:s,onChange:l,errors:w.errors,options:[["STREAMABLE_HTTP","Streamable HTTP"],["SSE","HTTP + SSE (older)"],["STDIO","Local process (stdio)"]]}),s==="STDIO"?e(C,{label:"Command",name:"command",value:i,onInput:p,errors:w.errors,hint:"The program and its arguments, separated by spaces."}):e(C,{label:"URL",name:"url",value:c,onInput:d,errors:w.errors,type:"url"}),e(q,{label:"Authentication",name:"auth.type",value:h,onChange:u,errors:w.errors,options:[["NONE","None"],["BEARER","Bearer token"],["API_KEY","API key header"],["HEADER","Custom header"]]}),(h==="API_KEY"||h==="HEADER")&&e(C,{label:"Header name",name:"auth.headerName",value:f,onInput:b,errors:w.errors}),h!=="NONE"&&e(C,{label:"Secret",name:"auth.secret",value:v,onInput:y,errors:w.errors,type:"password",autoComplete:"new-password",hint:"Write-only: stored encrypted, never shown again."}),e(pe,{legend:"Bind to spaces (none checked: global)",name:"spaceIds",options:(r.data??[]).map(D=>({value:D.id,label:`${D.label} (${D.name})`})),selected:_,onChange:g,errors:w.errors})]})}const xo=4e6;function Lo(t,n){const r=t.split(`
`),o=n.split(`
`);if(r.length*o.length>xo)return[...r.map(d=>({kind:"removed",text:d})),...o.map(d=>({kind:"added",text:d}))];const a=Array.from({length:r.length+1},()=>new Uint32Array(o.length+1));for(let d=r.length-1;d>=0;d-=1)for(let i=o.length-1;i>=0;i-=1)a[d][i]=r[d]===o[i]?a[d+1][i+1]+1:Math.max(a[d+1][i],a[d][i+1]);const s=[];let l=0,c=0;for(;l<r.length&&c<o.length;)r[l]===o[c]?(s.push({kind:"same",text:r[l]}),l+=1,c+=1):a[l+1][c]>=a[l][c+1]?(s.push({kind:"removed",text:r[l]}),l+=1):(s.push({kind:"added",text:o[c]}),c+=1);for(;l<r.length;l+=1)s.push({kind:"removed",text:r[l]});for(;c<o.length;c+=1)s.push({kind:"added",text:o[c]});return s}const Vt=50;function Mo({sub:t}){return t==="new"?e(Uo,{}):t==="import"?e(Bo,{}):t?e(Oo,{id:decodeURIComponent(t)}):e(qo,{})}function qo(){const{api:t,can:n}=k(),[r,o]=m(""),[a,s]=m(""),l=oe(a),c=H(()=>t.request(_r,{first:Vt,after:l.after,filter:a?{search:a}:null}),[a,l.after]),d=c.data?.skills;return e(S,{children:[e(x,{title:"Skills",children:n.manageSome&&e(S,{children:[e(A,{class:"button primary",to:"/skills/new",children:"Create skill"}),e(A,{class:"button",to:"/skills/import",children:"Import SKILL.md"})]})}),e("form",{class:"filters",role:"search","aria-label":"Filter skills",onSubmit:i=>{i.preventDefault(),s(r.trim())},children:[e(C,{label:"Search",name:"search",value:r,onInput:o}),e("button",{type:"submit",children:"Filter"})]}),e(G,{error:c.error,retry:c.reload}),d&&e(S,{children:[e("table",{children:[e("caption",{class:"sr-only",children:"Skills"}),e("thead",{children:e("tr",{children:[e("th",{scope:"col",children:"Name"}),e("th",{scope:"col",children:"Label"}),e("th",{scope:"col",children:"Scope"}),e("th",{scope:"col",children:"Production"}),e("th",{scope:"col",children:"Candidate"}),e("th",{scope:"col",children:"Status"})]})}),e("tbody",{children:d.edges.map(({node:i})=>e("tr",{children:[e("td",{children:e(A,{to:`/skills/${encodeURIComponent(i.id)}`,children:i.name})}),e("td",{children:i.label}),e("td",{children:i.space?i.space.name:"global"}),e("td",{children:i.version}),e("td",{children:i.candidateVersion?`${i.candidateVersion} (${i.canaryPercent}% of sessions)`:"—"}),e("td",{children:e($,{tone:j(i.status),children:i.status})})]},i.id))})]}),e(se,{label:"Skills",page:l.page,pageSize:Vt,shown:d.edges.length,total:d.totalCount,hasNext:d.pageInfo.hasNextPage,onNext:()=>l.next(d.pageInfo.endCursor),onPrevious:l.previous})]}),e(Go,{})]})}function bn({value:t,onChange:n,allowGlobal:r,errors:o}){const a=Z(),s=[...r?[["","Global (every space)"]]:[],...(a.data??[]).map(l=>[l.id,l.label])];return e(q,{label:"Space",name:"spaceId",value:t,onChange:n,options:s,errors:o})}function Uo(){const{api:t,can:n,viewer:r}=k(),[o,a]=m(r.space?.id??""),[s,l]=m(""),[c,d]=m(""),[i,p]=m(""),[h,u]=m(""),[f,b]=m(""),[v,y]=m(""),_=K();return n.manageSome?e(S,{children:[e(x,{title:"Create skill"}),e(ie,{wide:!0,onSubmit:async w=>{w.preventDefault();const U=await _.run(async()=>(await t.request(Sr,{input:{spaceId:o||null,name:s,label:c,description:i,prompt:h,triggerHints:f.split(",").map(D=>D.trim()).filter(Boolean),boundary:v||null}})).createSkill);U?.skill&&re(X(`/skills/${encodeURIComponent(U.skill.id)}`))},mutation:_,fields:["spaceId","name","label","description","prompt","triggerHints","boundary"],submitLabel:"Create skill",cancel:"/skills",children:[n.admin&&e(bn,{value:o,onChange:a,allowGlobal:!0,errors:_.errors}),e(C,{label:"Name",name:"name",value:s,onInput:l,errors:_.errors,hint:"1-64 of a-z, 0-9 and single hyphens."}),e(C,{label:"Label",name:"label",value:c,onInput:d,errors:_.errors}),e(C,{label:"Description",name:"description",value:i,onInput:p,errors:_.errors}),e(Y,{label:"Prompt",name:"prompt",value:h,onInput:u,errors:_.errors,rows:10,mono:!0,hint:"Markdown methodology; becomes version 1.0.0 in PRODUCTION."}),e(C,{label:"Trigger hints",name:"triggerHints",value:f,onInput:b,errors:_.errors,hint:"Comma-separated phrases that signal the skill applies."}),e(C,{label:"Boundary",name:"boundary",value:v,onInput:y,errors:_.errors,hint:"What the skill must not be used for."})]})]}):e("p",{children:"This key cannot create skills."})}function Bo(){const{api:t,can:n,viewer:r}=k(),[o,a]=m(r.space?.id??""),[s,l]=m(""),[c,d]=m(!1),i=K();return n.manageSome?e(S,{children:[e(x,{title:"Import SKILL.md"}),e(ie,{wide:!0,onSubmit:async h=>{h.preventDefault();const u=await i.run(async()=>(await t.request(Ar,{input:{spaceId:o||null,text:s,replaceExisting:c}})).importSkill);u?.skill&&re(X(`/skills/${encodeURIComponent(u.skill.id)}`))},mutation:i,fields:["spaceId","text"],submitLabel:"Import skill",cancel:"/skills",children:[n.admin&&e(bn,{value:o,onChange:a,allowGlobal:!0,errors:i.errors}),e("div",{class:"field",children:[e("label",{for:"skill-file",children:"SKILL.md file"}),e("input",{id:"skill-file",type:"file",accept:".md,text/markdown",onChange:async h=>l(await h.currentTarget.files?.[0]?.text()??s)})]}),e(Y,{label:"SKILL.md text",name:"text",value:s,onInput:l,errors:i.errors,rows:14,mono:!0,hint:"YAML front matter (name, description, metadata) then the Markdown prompt."}),e("label",{class:"check",children:[e("input",{type:"checkbox",checked:c,onChange:h=>d(h.currentTarget.checked)})," Update the skill of that name if it exists"]})]})]}):e("p",{children:"This key cannot import skills."})}function Oo({id:t}){const{api:n,can:r}=k(),o=H(()=>n.request(yr,{id:t}),[t]),a=o.data?.skill;if(o.data&&!a)return e(S,{children:[e(x,{title:"Skill not found"}),e("p",{children:["No skill ",e("code",{children:t})," is visible to this key. ",e(A,{to:"/skills",children:"Back to Skills"})]})]});const s=a?r.manage(a.space?.id??null)&&(a.space!==null||r.admin):!1;return e(S,{children:[e(x,{title:a?`Skill ${a.name}`:"Skill",children:e(A,{class:"button",to:"/skills",children:"All skills"})}),e(G,{error:o.error,retry:o.reload}),a&&e(S,{children:[e("dl",{class:"facts",children:[e("dt",{children:"Label"}),e("dd",{children:a.label}),e("dt",{children:"Scope"}),e("dd",{children:a.space?`space ${a.space.name}`:"global"}),e("dt",{children:"Status"}),e("dd",{children:e($,{tone:j(a.status),children:a.status})}),e("dt",{children:"Production"}),e("dd",{children:[a.version," (",a.charCount," characters)"]}),e("dt",{children:"Candidate"}),e("dd",{children:a.candidateVersion?`${a.candidateVersion}, served to ${a.canaryPercent}% of sessions`:"none"}),e("dt",{children:"Description"}),e("dd",{children:a.description}),e("dt",{children:"Trigger hints"}),e("dd",{children:a.triggerHints.join(", ")||"—"}),e("dt",{children:"Boundary"}),e("dd",{children:a.boundary??"—"})]}),s&&e(Vo,{skill:a,onChanged:o.reload}),e(Fo,{skill:a}),e(Ho,{skill:a}),e(jo,{skill:a}),s&&e(Ko,{skill:a,onChanged:o.reload})]})]})}function Ko({skill:t,onChanged:n}){const{api:r}=k(),o=K(),a=t.status==="ACTIVE"?"DISABLED":"ACTIVE";return e("div",{class:"buttons",children:[e("button",{type:"button",disabled:o.busy,onClick:async()=>{await o.run(async()=>(await r.request(pt,{input:{id:t.id,status:a}})).setStatus)&&n()},children:a==="ACTIVE"?"Enable skill":"Disable skill"}),e(Q,{errors:o.errors,fields:[]})]})}function Vo({skill:t,onChanged:n}){const{api:r}=k(),o=t.versions.find(E=>E.version===t.version),[a,s]=m(o?.prompt??""),[l,c]=m(""),[d,i]=m("10"),[p,h]=m(String(t.canaryPercent)),[u,f]=m(""),[b,v]=m(null),y=K(),_=K(),g=K(),w=K();N(()=>h(String(t.canaryPercent)),[t.canaryPercent]);const U=t.versions.filter(E=>E.version!==t.version&&E.channel!=="CANDIDATE"),D=async E=>{E.preventDefault();const P=await y.run(async()=>(await r.request(wr,{input:{skillId:t.id,prompt:a,version:l||null,canaryPercent:d===""?null:Number(d)}})).publishSkillVersion);P?.skillVersion&&(v(`Version ${P.skillVersion.version} published as the candidate.`),c(""),n())},W=async()=>{const E=await _.run(async()=>(await r.request(Ir,{input:{skillId:t.id}})).promoteSkillCandidate);E?.skill&&(v(`Version ${E.skill.version} is now in production.`),n())},T=async E=>{E.preventDefault();const P=await g.run(async()=>(await r.request(Cr,{input:{skillId:t.id,version:u||null}})).rollbackSkill);P?.skill&&(v(`Production rolled back to ${P.skill.version}.`),n())},J=async E=>{E.preventDefault();const P=await w.run(async()=>(await r.request(kr,{input:{skillId:t.id,canaryPercent:Number(p)}})).setSkillCanary);P?.skill&&(v(`The candidate now serves ${P.skill.canaryPercent}% of sessions.`),n())};return e("section",{"aria-labelledby":"channels-title",children:[e("h2",{id:"channels-title",children:"Channels"}),b&&e(be,{children:b}),e("div",{class:"columns",children:[e("form",{class:"card form",onSubmit:D,"aria-label":"Publish a candidate",children:[e("h3",{children:"Publish a candidate"}),e(Y,{label:"Candidate prompt",name:"prompt",value:a,onInput:s,errors:y.errors,rows:8,mono:!0}),e(C,{label:"Candidate version",name:"version",value:l,onInput:c,errors:y.errors,hint:"Default: the next patch version."}),e(C,{label:"Canary share (%)",name:"canaryPercent",value:d,onInput:i,errors:y.errors,type:"number"}),e(Q,{errors:y.errors,fields:["prompt","version","canaryPercent"]}),e("button",{type:"submit",disabled:y.busy,children:"Publish candidate"})]}),e("div",{children:[t.candidateVersion&&e("div",{class:"card",children:[e("h3",{children:["Candidate ",t.candidateVersion]}),e("button",{type:"button",class:"primary",onClick:W,disabled:_.busy,children:["Promote ",t.candidateVersion," to production"]}),e(Q,{errors:_.errors,fields:[]}),e("form",{class:"form",onSubmit:J,"aria-label":"Canary share",children:[e(C,{label:"Share of sessions (%)",name:"canaryPercent",value:p,onInput:h,errors:w.errors,type:"number"}),e(Q,{errors:w.errors,fields:["canaryPercent"]}),e("button",{type:"submit",disabled:w.busy,children:"Set canary share"})]})]}),U.length>0&&e("form",{class:"card form",onSubmit:T,"aria-label":"Roll back",children:[e("h3",{children:"Roll back production"}),e(q,{label:"Version to serve",name:"version",value:u,onChange:f,errors:g.errors,options:[["","The previous production version"],...U.map(E=>[E.version,`${E.version} (${E.channel})`])]}),e(Q,{errors:g.errors,fields:["version"]}),e("button",{type:"submit",disabled:g.busy,children:"Roll back"})]})]})]})]})}function Fo({skill:t}){const n=t.versions,r=n[n.length-1]?.version??"",o=n.length>1?n[n.length-2].version:r,[a,s]=m(o),[l,c]=m(r);N(()=>{s(o),c(r)},[o,r]);const d=n.find(h=>h.version===a)?.prompt??"",i=n.find(h=>h.version===l)?.prompt??"",p=n.map(h=>[h.version,`${h.version} (${h.channel})`]);return e("section",{"aria-labelledby":"versions-title",children:[e("h2",{id:"versions-title",children:"Versions"}),e("table",{class:"compact",children:[e("caption",{class:"sr-only",children:"Versions"}),e("thead",{children:e("tr",{children:[e("th",{scope:"col",children:"Version"}),e("th",{scope:"col",children:"Channel"}),e("th",{scope:"col",children:"Created"}),e("th",{scope:"col",children:"Characters"})]})}),e("tbody",{children:n.map(h=>e("tr",{children:[e("td",{children:h.version}),e("td",{children:e($,{tone:j(h.channel),children:h.channel})}),e("td",{children:V(h.createdAt)}),e("td",{children:h.prompt.length})]},h.version))})]}),n.length>1&&e(S,{children:[e("h3",{children:"Diff"}),e("div",{class:"filters",children:[e(q,{label:"From version",name:"from",value:a,onChange:s,options:p}),e(q,{label:"To version",name:"to",value:l,onChange:c,options:p})]}),e("pre",{class:"diff","aria-label":`Diff from ${a} to ${l}`,tabIndex:0,children:Lo(d,i).map((h,u)=>e("div",{class:h.kind,children:[e("span",{"aria-hidden":"true",children:h.kind==="added"?"+ ":h.kind==="removed"?"- ":"  "}),e("span",{class:"sr-only",children:h.kind==="added"?"added: ":h.kind==="removed"?"removed: ":""}),h.text]},u))})]})]})}function Ho({skill:t}){return e("section",{"aria-labelledby":"history-title",children:[e("h2",{id:"history-title",children:"Channel history"}),e("table",{class:"compact",children:[e("caption",{class:"sr-only",children:"Channel history"}),e("thead",{children:e("tr",{children:[e("th",{scope:"col",children:"When"}),e("th",{scope:"col",children:"Action"}),e("th",{scope:"col",children:"Channel"}),e("th",{scope:"col",children:"From"}),e("th",{scope:"col",children:"To"}),e("th",{scope:"col",children:"Canary"}),e("th",{scope:"col",children:"By key"})]})}),e("tbody",{children:t.channelHistory.map((n,r)=>e("tr",{children:[e("td",{children:V(n.at)}),e("td",{children:n.action}),e("td",{children:n.channel}),e("td",{children:n.fromVersion??"—"}),e("td",{children:n.toVersion??"—"}),e("td",{children:n.canaryPercent===null?"—":`${n.canaryPercent}%`}),e("td",{children:e("code",{children:n.actor??"—"})})]},r))})]})]})}function jo({skill:t}){const{api:n}=k(),[r,o]=m(t.version),[a,s]=m(null),[l,c]=m(null),d=async()=>{try{const p=await n.request(vr,{id:t.id,version:r});s(p.skill?.skillMd??null)}catch(p){c(ee(p))}},i=a?URL.createObjectURL(new Blob([a],{type:"text/markdown"})):null;return N(()=>()=>i?URL.revokeObjectURL(i):void 0,[i]),e("section",{"aria-labelledby":"export-title",children:[e("h2",{id:"export-title",children:"SKILL.md"}),e("div",{class:"filters",children:[e(q,{label:"Export version",name:"exportVersion",value:r,onChange:o,options:t.versions.map(p=>[p.version,p.version])}),e("button",{type:"button",onClick:d,children:"Export SKILL.md"})]}),l&&e("p",{role:"alert",children:l}),a&&i&&e(S,{children:[e("a",{href:i,download:`${t.name}-SKILL.md`,children:["Download ",t.name,"/SKILL.md"]}),e("pre",{class:"json","aria-label":"SKILL.md",tabIndex:0,children:a})]})]})}function Go(){const{api:t,viewer:n}=k(),r=Z(),[o,a]=m(n.space?.id??""),[s,l]=m(""),[c,d]=m(null),[i,p]=m(null),h=(r.data??[]).map(f=>[f.id,f.label]);return e("section",{"aria-labelledby":"match-title",children:[e("h2",{id:"match-title",children:"Match playground"}),e("form",{class:"card form",onSubmit:async f=>{f.preventDefault(),p(null);try{d((await t.request($r,{spaceId:o||h[0]?.[0]||"",query:s,topK:10})).matchSkills)}catch(b){p(ee(b))}},role:"search","aria-label":"Match skills",children:[!n.space&&e(q,{label:"Space",name:"spaceId",value:o,onChange:a,options:h}),e(ke,{label:"Request",name:"query",children:f=>e("input",{...f,value:s,onInput:b=>l(b.currentTarget.value)})}),e("button",{type:"submit",children:"Match"})]}),i&&e("p",{role:"alert",children:i}),c&&e("table",{children:[e("caption",{children:"Matches, best first"}),e("thead",{children:e("tr",{children:[e("th",{scope:"col",children:"Skill"}),e("th",{scope:"col",children:"Score"}),e("th",{scope:"col",children:"Lexical"}),e("th",{scope:"col",children:"Semantic"}),e("th",{scope:"col",children:"Boundary"}),e("th",{scope:"col",children:"Why"})]})}),e("tbody",{children:[c.length===0&&e("tr",{children:e("td",{colSpan:6,children:"No skill matches this request."})}),c.map(f=>e("tr",{children:[e("td",{children:e(A,{to:`/skills/${encodeURIComponent(f.skill.id)}`,children:f.skill.name})}),e("td",{children:f.score.toFixed(3)}),e("td",{children:f.lexicalScore.toFixed(3)}),e("td",{children:f.semanticScore===null?"—":f.semanticScore.toFixed(3)}),e("td",{children:f.boundaryFactor<1?`× ${f.boundaryFactor.toFixed(2)} (touches its boundary)`:"—"}),e("td",{children:f.reason??"—"})]},f.skill.id))]})]})]})}const Ft=50;function Wo({sub:t}){return t==="new"?e(Jo,{}):t?e(Zo,{id:decodeURIComponent(t)}):e(zo,{})}function zo(){const{api:t,can:n}=k(),r=oe("spaces"),o=H(()=>t.request(Tr,{first:Ft,after:r.after}),[r.after]),a=o.data?.spaces;return e(S,{children:[e(x,{title:"Spaces",children:n.admin&&e(A,{class:"button primary",to:"/spaces/new",children:"Create space"})}),e(G,{error:o.error,retry:o.reload}),a&&e(S,{children:[e("table",{children:[e("caption",{class:"sr-only",children:"Spaces"}),e("thead",{children:e("tr",{children:[e("th",{scope:"col",children:"Label"}),e("th",{scope:"col",children:"Name"}),e("th",{scope:"col",children:"Id"}),e("th",{scope:"col",children:"Created"})]})}),e("tbody",{children:a.edges.map(({node:s})=>e("tr",{children:[e("td",{children:[e(A,{to:`/spaces/${encodeURIComponent(s.id)}`,children:s.label})," ",s.isSystem&&e($,{children:"system"})]}),e("td",{children:e("code",{children:s.name})}),e("td",{children:e("code",{children:s.id})}),e("td",{children:V(s.createdAt)})]},s.id))})]}),e(se,{label:"Spaces",page:r.page,pageSize:Ft,shown:a.edges.length,total:a.totalCount,hasNext:a.pageInfo.hasNextPage,onNext:()=>r.next(a.pageInfo.endCursor),onPrevious:r.previous})]})]})}function Jo(){const{api:t,can:n}=k(),[r,o]=m(""),[a,s]=m(""),l=K();return n.admin?e(S,{children:[e(x,{title:"Create space"}),e(ie,{onSubmit:async d=>{d.preventDefault();const i=await l.run(async()=>(await t.request(Pr,{input:{name:r,label:a}})).createSpace);i?.space&&re(X(`/spaces/${encodeURIComponent(i.space.id)}?created=1`))},mutation:l,fields:["name","label"],submitLabel:"Create space",cancel:"/spaces",children:[e(C,{label:"Name",name:"name",value:r,onInput:o,errors:l.errors,hint:"Unique machine name: 1-64 of a-z, 0-9, '_' and '-'.",required:!0}),e(C,{label:"Label",name:"label",value:a,onInput:s,errors:l.errors,hint:"Display name for people.",required:!0})]})]}):e("p",{children:"Only ADMIN keys create spaces."})}function Zo({id:t}){const{api:n}=k(),r=H(()=>n.request(Er,{id:t}),[t]),o=r.data?.space,a=new URLSearchParams(window.location.search).has("created");return r.data&&!o?e(S,{children:[e(x,{title:"Space not found"}),e("p",{children:["No space ",e("code",{children:t})," is visible to this key. ",e(A,{to:"/spaces",children:"Back to Spaces"})]})]}):e(S,{children:[e(x,{title:o?`Space ${o.label}`:"Space",children:e(A,{class:"button",to:"/spaces",children:"All spaces"})}),e(G,{error:r.error,retry:r.reload}),a&&o&&e(be,{children:["Space ",o.name," created."]}),o&&e(S,{children:[e("dl",{class:"facts",children:[e("dt",{children:"Name"}),e("dd",{children:e("code",{children:o.name})}),e("dt",{children:"Id"}),e("dd",{children:e("code",{children:o.id})}),e("dt",{children:"Created"}),e("dd",{children:V(o.createdAt)})]}),e("h2",{children:"What this space can see"}),e("div",{class:"columns",children:[e("section",{"aria-labelledby":"visible-tools",children:[e("h3",{id:"visible-tools",children:["Tools (",o.visibleTools.totalCount,")"]}),e("ul",{class:"plain",children:o.visibleTools.edges.map(({node:s})=>e("li",{children:[e(A,{to:`/tools/${encodeURIComponent(s.id)}`,children:s.name})," ",e($,{children:s.type})," ",e($,{tone:s.isGlobal?"plain":"busy",children:s.isGlobal?"global":"bound"})]},s.id))}),o.visibleTools.totalCount>o.visibleTools.edges.length&&e(A,{to:`/tools?space=${encodeURIComponent(o.id)}`,children:["All ",o.visibleTools.totalCount," tools"]})]}),e("section",{"aria-labelledby":"visible-skills",children:[e("h3",{id:"visible-skills",children:["Skills (",o.skills.totalCount,")"]}),e("ul",{class:"plain",children:o.skills.edges.map(({node:s})=>e("li",{children:[e(A,{to:`/skills/${encodeURIComponent(s.id)}`,children:s.name})," ",e("span",{class:"muted",children:s.version})," ",!s.space&&e($,{children:"global"})]},s.id))})]}),e("section",{"aria-labelledby":"visible-kbs",children:[e("h3",{id:"visible-kbs",children:["Knowledge bases (",o.knowledgeBases.totalCount,")"]}),e("ul",{class:"plain",children:o.knowledgeBases.edges.map(({node:s})=>e("li",{children:[e(A,{to:`/knowledge/${encodeURIComponent(s.id)}`,children:s.label})," ",e("span",{class:"muted",children:[s.documentCount," documents"]})]},s.id))})]}),e("section",{"aria-labelledby":"visible-agents",children:[e("h3",{id:"visible-agents",children:["Agents (",o.agents.totalCount,")"]}),e("ul",{class:"plain",children:o.agents.edges.map(({node:s})=>e("li",{children:[e(A,{to:`/agents/${encodeURIComponent(s.id)}`,children:s.name})," ",e("span",{class:"muted",children:s.model})]},s.id))})]})]})]})]})}const Qo=[{path:"/spaces",name:"Spaces"},{path:"/tools",name:"Tools"},{path:"/mcp-servers",name:"MCP servers"},{path:"/knowledge",name:"Knowledge"},{path:"/skills",name:"Skills"},{path:"/agents",name:"Agents"},{path:"/approvals",name:"Approvals"},{path:"/live-calls",name:"Live calls"},{path:"/api-keys",name:"API keys"}];function Yo(){const[t,n]=m(()=>wt()?{kind:"checking"}:{kind:"signedOut",reason:Dn()}),r=qe(a=>{Tn(a??null),n({kind:"signedOut",reason:a??null})},[]),o=qe(async a=>{const s=new Ht(a,c=>r(_n(c))),{viewer:l}=await s.request(cn,{});s.close(),En(a),n({kind:"signedIn",key:a,viewer:l})},[r]);return N(()=>{if(t.kind!=="checking")return;const a=wt();if(!a){n({kind:"signedOut",reason:null});return}o(a).catch(s=>{s instanceof lt||n({kind:"signedOut",reason:ee(s)})})},[t.kind,o]),N(()=>{const a=s=>{s.key===Pn&&s.newValue===null&&r("You signed out in another window.")};return window.addEventListener("storage",a),()=>window.removeEventListener("storage",a)},[r]),t.kind==="checking"?e("main",{class:"signin","aria-busy":"true",children:e("p",{children:"Checking the saved API key…"})}):t.kind==="signedOut"?e(Xo,{reason:t.reason,onSignIn:o}):e(es,{apiKey:t.key,viewer:t.viewer,signOut:r},t.key)}function _n(t){return`You were signed out because Quiver no longer accepts this API key (${t.replace(/\.$/,"")}). It may have been revoked; sign in with another key.`}function Xo({reason:t,onSignIn:n}){const[r,o]=m(""),[a,s]=m(null),[l,c]=m(!1);return e("main",{class:"signin",id:"main",children:e("form",{class:"card",onSubmit:async i=>{i.preventDefault();const p=r.trim();if(!p){s("Enter an API key.");return}c(!0),s(null);try{const h=await $n(p);if(!h.ok){s(`This key was refused: ${h.reason}`);return}await n(p)}catch(h){s(ee(h))}finally{c(!1)}},"aria-labelledby":"signin-title",children:[e("h1",{id:"signin-title",children:"Quiver console"}),e("p",{class:"hint",children:["Sign in with an API key. ",e("code",{children:"quiver serve"})," prints an ADMIN key on its first run;"," ",e("code",{children:"quiver apikey create"})," makes more."]}),t&&e("p",{class:"signed-out",role:"alert",children:t}),e("div",{class:`field${a?" invalid":""}`,children:[e("label",{for:"api-key",children:"API key"}),e("input",{id:"api-key",name:"apiKey",type:"password",autoComplete:"current-password",value:r,"aria-invalid":a!==null,"aria-describedby":a?"api-key-error":void 0,onInput:i=>o(i.currentTarget.value),autoFocus:!0}),a&&e("p",{class:"field-error",id:"api-key-error",role:"alert",children:a})]}),e("button",{type:"submit",class:"primary",disabled:l,children:"Sign in"}),e("p",{class:"hint",children:[e("a",{href:"/graphql",children:"GraphiQL"})," uses the same key."]})]})})}function es({apiKey:t,viewer:n,signOut:r}){const[o,a]=m(n),s=ge(()=>new Ht(t,d=>r(_n(d))),[t,r]);N(()=>()=>s.close(),[s]),N(()=>{const d=window.setInterval(()=>{s.request(cn,{}).then(i=>a(i.viewer),()=>{})},Ur);return()=>window.clearInterval(d)},[s]);const l=ge(()=>({api:s,viewer:o,can:Br(o),signOut:r}),[s,o,r]),c=dn();return N(()=>{c===""&&re(X("/spaces"),{replace:!0})},[c]),e(un.Provider,{value:l,children:[e("a",{class:"skip",href:"#main",children:"Skip to content"}),e("header",{class:"topbar",children:[e("span",{class:"brand",children:"Quiver"}),e("p",{class:"who","aria-label":"Signed in as",children:[e("span",{class:"badge role",children:o.role})," ",o.space?e(S,{children:["space ",e("strong",{children:o.space.label})," ",e("span",{class:"muted",children:["(",o.space.name,")"]})]}):e(S,{children:"every space"})," ",e("span",{class:"muted",children:["· key ",o.keyLabel?`“${o.keyLabel}” `:"",e("code",{children:o.keyId})]})]}),e("a",{href:"/graphql",class:"graphiql-link",children:"GraphiQL"}),e("button",{type:"button",onClick:()=>r(),children:"Sign out"})]}),e("div",{class:"layout",children:[e("nav",{class:"sidebar","aria-label":"Pages",children:e("ul",{children:Qo.map(d=>e("li",{children:[e(A,{to:d.path,"aria-current":c===d.path||c.startsWith(`${d.path}/`)?"page":void 0,children:d.name}),d.path==="/approvals"&&e(So,{})]},d.path))})}),e("main",{id:"main",class:"content",children:e(ts,{path:c})})]})]})}function ts({path:t}){const[,n,...r]=t.split("/"),o=r.join("/");switch(n){case"spaces":return e(Wo,{sub:o});case"tools":return e(Kr,{sub:o});case"mcp-servers":return e(Po,{});case"knowledge":return e(wo,{sub:o});case"skills":return e(Mo,{sub:o});case"agents":return e(eo,{sub:o});case"approvals":return e(yo,{});case"live-calls":return e(To,{});case"api-keys":return e(io,{});case void 0:return null;default:return e(S,{children:[e(x,{title:"Not found"}),e("p",{children:["No page at ",e("code",{children:X(t)}),". ",e(A,{to:"/spaces",children:"Go to Spaces"}),"."]})]})}}Bn(e(Yo,{}),document.getElementById("app"));
